#!/usr/bin/env python3
"""One Decision Transformer training step in eager PyTorch, to compare with `harmonic bench --dt`
(tools/bench/dt_case.cpp, models/decision_transformer.h). The model as the Decision
Transformer's Atari code (minGPT) writes it, with the Harmonic model's shapes: returns-to-go
tanh(Linear(1, 128)), states tanh(Linear(40, 128)) (the stand-in for the Atari convnet),
actions tanh(Embedding(18, 128)), interleaved as (R, s, a) x 30 = 90 tokens, plus a learned
global timestep embedding gathered at each window's start and a learned position embedding;
dropout 0.1; 6 pre-norm blocks of causal self-attention (8 heads) and a GELU MLP of width 512
with dropout after the activation (as Harmonic's layer); final LayerNorm; a head read at the
state tokens: linear (18, no bias) or the Fourier head with 8 frequencies (its pmf at the 18
bin centres, log(pmf + 1e-5), regulariser gamma 1e-6 * 2 pi^2 / m * sum k^2 |c_k|^2).
One step = forward, cross-entropy (+ regulariser), zero_grad, backward, AdamW(6e-4, (0.9, 0.95),
weight decay 0.1) step, batch 64. Prints ms/step and windows/s (median over timed runs).
Usage (the peer's python: ~/.cache/harmonic/torch-venv/bin/python from .ci/install-deps --with-torch):
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_dt_torch.py --threads 1
  python3 tools/bench/torch/bench_dt_torch.py --device cuda [--bf16]   # on a GPU machine
On cuda (cuda:0, against `harmonic bench --dt --device cuda`) TF32 stays off (float32) unless
--bf16: bf16 autocast around forward and loss, float32 weights and AdamW, as Harmonic's
--precision bf16.
"""
import argparse
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import add_timing_args, median_step_ms, set_up_device, training_step  # noqa: E402

S, A, K, L, H, E, B, DROP, MAX_T, N_FREQ, GAMMA = 40, 18, 30, 6, 8, 128, 64, 0.1, 1000, 8, 1e-6


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(E, 3 * E)
        self.c_proj = nn.Linear(E, E)
        self.attn_drop, self.resid_drop = nn.Dropout(DROP), nn.Dropout(DROP)
        self.register_buffer("blocked", torch.triu(torch.ones(3 * K, 3 * K, dtype=torch.bool), 1))

    def forward(self, x):
        b, t, e = x.shape
        q, k, v = self.c_attn(x).split(E, dim=2)
        q, k, v = (z.view(b, t, H, e // H).transpose(1, 2) for z in (q, k, v))  # (B, H, T, D)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.blocked[:t, :t], float("-inf")).softmax(-1)
        y = (self.attn_drop(att) @ v).transpose(1, 2).contiguous().view(b, t, e)
        return self.resid_drop(self.c_proj(y))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(E), nn.LayerNorm(E)
        self.attn = CausalSelfAttention()
        self.fc, self.proj = nn.Linear(E, 4 * E), nn.Linear(4 * E, E)
        self.drop, self.ff_drop = nn.Dropout(DROP), nn.Dropout(DROP)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.drop(self.proj(self.ff_drop(F.gelu(self.fc(self.ln_2(x))))))


class FourierHead(nn.Module):
    """Gillman et al.'s head (Algorithm 1) in its real form."""

    def __init__(self, n_freq, bins):
        super().__init__()
        self.n, self.m = n_freq, bins
        self.linear = nn.Linear(E, 2 * (n_freq + 1))
        centres = -1 + (2 * torch.arange(bins) + 1) / bins
        angle = math.pi * torch.arange(n_freq + 1).unsqueeze(1) * centres  # (N+1, m)
        self.register_buffer("cos", torch.cos(angle))
        self.register_buffer("sin", torch.sin(angle))
        self.reg = torch.zeros(())

    def forward(self, x):
        v = self.linear(x)
        alpha, beta = v[..., : self.n + 1], v[..., self.n + 1 :]
        re = alpha @ self.cos - beta @ self.sin
        im = alpha @ self.sin + beta @ self.cos
        p = (re * re + im * im) / (2 * (alpha * alpha + beta * beta).sum(-1, keepdim=True))
        y = p / p.sum(-1, keepdim=True)
        a = torch.complex(alpha.float(), beta.float())  # (..., N+1); no bf16 complex under autocast
        c = torch.stack([(a[..., : self.n + 1 - k] * a[..., k:].conj()).sum(-1) for k in range(1, self.n + 1)], -1)
        ks = torch.arange(1, self.n + 1, dtype=torch.float32, device=x.device)
        self.reg = GAMMA * (2 * math.pi**2 / self.m) * (ks**2 * c.abs() ** 2).sum(-1).mean()
        return torch.log(y + 1e-5)


class DecisionTransformer(nn.Module):
    def __init__(self, head):
        super().__init__()
        self.ret_emb, self.state_enc = nn.Linear(1, E), nn.Linear(S, E)
        self.action_emb = nn.Embedding(A, E)
        self.global_pos = nn.Embedding(MAX_T + 1, E)
        self.pos_emb = nn.Parameter(torch.zeros(1, 3 * K, E))
        self.drop = nn.Dropout(DROP)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.ln_f = nn.LayerNorm(E)
        self.head = nn.Linear(E, A, bias=False) if head == "linear" else FourierHead(N_FREQ, A)

    def forward(self, rtgs, states, actions, timesteps):
        b, k = actions.shape
        tokens = torch.stack([torch.tanh(self.ret_emb(rtgs)), torch.tanh(self.state_enc(states)),
                              torch.tanh(self.action_emb(actions))], 2).reshape(b, 3 * k, E)
        x = self.drop(tokens + self.global_pos(timesteps).unsqueeze(1) + self.pos_emb[:, : 3 * k])
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x).view(b, k, 3, E)[:, :, 1])  # (B, K, A) at the state tokens


def time_case(head, warmup, repeat, device="cpu", bf16=False):
    torch.manual_seed(0)
    model = DecisionTransformer(head).to(device)  # initialised on the CPU: the same weights on every device
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
    rtgs, states = torch.rand(B, K, 1).to(device), torch.randn(B, K, S).to(device)
    actions, timesteps = torch.randint(0, A, (B, K)).to(device), torch.randint(0, 900, (B,)).to(device)
    def loss():
        scores = model(rtgs, states, actions, timesteps)
        ce = F.cross_entropy(scores.reshape(-1, A).float(), actions.reshape(-1))
        return ce + model.head.reg if head == "fourier" else ce

    return median_step_ms(training_step(opt, loss, bf16), warmup, repeat, device)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_timing_args(ap, repeat=5)
    ap.add_argument("--case", action="append", choices=["linear", "fourier"])
    ap.add_argument("--bf16", action="store_true", help="cuda: bf16 autocast")
    args = ap.parse_args()
    if args.bf16 and args.device == "cpu":
        ap.error("--bf16 needs --device cuda")
    where = set_up_device(args.device, args.threads)
    for head in args.case or ["linear", "fourier"]:
        ms = time_case(head, args.warmup, args.repeat, args.device, args.bf16)
        label = head + (" bf16" if args.bf16 else "")
        print(f"torch dt {label:<8} L={L} E={E} H={H} K={K} B={B}  {where}  "
              f"{ms:8.1f} ms/step  {B / (ms * 1e-3):7.0f} windows/s", flush=True)


if __name__ == "__main__":
    main()
