#!/usr/bin/env python3
"""One GPT training step in eager PyTorch, to compare with `harmonic bench --gpt`
(tools/bench/gpt_case.cpp, models/gpt.h). The model as a PyTorch user writes it (minGPT blocks):
token embedding + fixed sinusoidal positions, dropout 0.1, 4 pre-norm blocks of causal
self-attention (fused qkv Linear, 8 heads) and a GELU(tanh) MLP of width 4 n_embd with
dropout after the activation (nn.TransformerEncoderLayer's, which Harmonic's layer has), final
LayerNorm and an untied lm head; n_embd 128, block 256, batch 8, vocab 8192. One step =
forward, cross-entropy, zero_grad, backward, AdamW(lr 3e-4) step.

Attention (torch 1.13 has no F.scaled_dot_product_attention):
  softmax  (q k^T / sqrt(D)).masked_fill(causal, -inf).softmax(-1), dropout, @ v
  fourier  the FourierFormer kernel (p = 4, scalar R init 2, no 1/sqrt(D)) in torch ops:
           p * sum_d log|sinc(R (q_d - k_d))| over a materialised (B, H, T, T, D) difference,
           masked softmax, dropout, @ v (as tools/bench/torch/bench_fourier_attention_torch.py)
  sdpa     (--sdpa) F.scaled_dot_product_attention (torch 2.x), causal, dropout
Prints ms/step and tokens/s (median over timed runs).
Usage (the peer's python: ~/.cache/harmonic/torch-venv/bin/python from .ci/install-deps --with-torch):
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_gpt_torch.py --threads 1
  python3 tools/bench/torch/bench_gpt_torch.py --device cuda --size gpt2 --case softmax --sdpa   # on a GPU machine
--size gpt2_124m is GPT-2 small itself (vocabulary 50257, learned positions, tied head, no dropout),
as llm.c trains it. --size gpt2 is the 12-layer d768 model (12 heads, block 1024, batch 8, vocab 8192) of
`harmonic train kjv-lm --device cuda` at the same sizes; on cuda TF32 stays off (float32) unless
--bf16 (autocast).
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

V, T, L, H, E, B, DROP = 8192, 256, 4, 8, 128, 8, 0.1
SIZES = {"small": (8192, 256, 4, 8, 128, 8), "gpt2": (8192, 1024, 12, 12, 768, 8), "gpt2_124m": (50257, 1024, 12, 12, 768, 8)}
SDPA = False
GPT2_SMALL = False  # gpt2_124m: GPT-2 small itself (learned positions, lm head tied to wte, no dropout), as llm.c


def sinusoidal(n, dim):
    pos = torch.arange(n, dtype=torch.float32).unsqueeze(1)
    w = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    table = torch.zeros(n, dim)
    table[:, 0::2] = torch.sin(pos * w)
    table[:, 1::2] = torch.cos(pos * w)
    return table


class CausalSelfAttention(nn.Module):
    def __init__(self, kernel):
        super().__init__()
        self.c_attn = nn.Linear(E, 3 * E)
        self.c_proj = nn.Linear(E, E)
        self.attn_drop = nn.Dropout(DROP)
        self.resid_drop = nn.Dropout(DROP)
        self.kernel = kernel
        if kernel == "fourier":
            self.R = nn.Parameter(torch.tensor(2.0))
        self.register_buffer("blocked", torch.triu(torch.ones(T, T, dtype=torch.bool), 1))

    def forward(self, x):
        b, t, e = x.shape
        q, k, v = self.c_attn(x).split(E, dim=2)
        q, k, v = (z.view(b, t, H, e // H).transpose(1, 2) for z in (q, k, v))  # (B, H, T, D)
        if self.kernel == "softmax" and SDPA:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=DROP if self.training else 0.0, is_causal=True)
            return self.resid_drop(self.c_proj(y.transpose(1, 2).contiguous().view(b, t, e)))
        if self.kernel == "softmax":
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        else:
            x_ = self.R * (q.unsqueeze(3) - k.unsqueeze(2))  # (B, H, T, T, D)
            att = 4 * torch.log(torch.abs(torch.sin(x_) / x_)).sum(-1)
        att = att.masked_fill(self.blocked[:t, :t], float("-inf")).softmax(-1)
        y = self.attn_drop(att) @ v
        y = y.transpose(1, 2).contiguous().view(b, t, e)
        return self.resid_drop(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, kernel):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(E), nn.LayerNorm(E)
        self.attn = CausalSelfAttention(kernel)
        self.fc, self.proj = nn.Linear(E, 4 * E), nn.Linear(4 * E, E)
        self.drop, self.ff_drop = nn.Dropout(DROP), nn.Dropout(DROP)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = self.ff_drop(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))  # as nn.TransformerEncoderLayer
        return x + self.drop(self.proj(h))


class GPT(nn.Module):
    def __init__(self, kernel):
        super().__init__()
        self.wte = nn.Embedding(V, E)
        if GPT2_SMALL:
            self.wpe = nn.Embedding(T, E)
        else:
            self.register_buffer("pos", sinusoidal(T, E))
        self.drop = nn.Dropout(DROP)
        self.blocks = nn.ModuleList(Block(kernel) for _ in range(L))
        self.ln_f = nn.LayerNorm(E)
        self.lm_head = nn.Linear(E, V, bias=False)
        if GPT2_SMALL:
            self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        pos = self.wpe.weight[: idx.size(1)] if GPT2_SMALL else self.pos[: idx.size(1)]
        x = self.drop(self.wte(idx) + pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def time_case(kernel, warmup, repeat, device="cpu", bf16=False):
    torch.manual_seed(0)
    model = GPT(kernel).to(device)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    tokens = torch.randint(0, V, (B, T), device=device)
    targets = torch.randint(0, V, (B, T), device=device)

    def loss():
        return F.cross_entropy(model(tokens).view(-1, V).float(), targets.view(-1))

    return median_step_ms(training_step(opt, loss, bf16), warmup, repeat, device)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_timing_args(ap, repeat=3)
    ap.add_argument("--case", action="append", choices=["softmax", "fourier"])
    ap.add_argument("--size", default="small", choices=list(SIZES))
    ap.add_argument("--sdpa", action="store_true", help="softmax attention through F.scaled_dot_product_attention")
    ap.add_argument("--bf16", action="store_true", help="cuda: bf16 autocast")
    args = ap.parse_args()
    global V, T, L, H, E, B, SDPA, DROP, GPT2_SMALL
    V, T, L, H, E, B = SIZES[args.size]
    if args.size == "gpt2_124m":
        GPT2_SMALL, DROP = True, 0.0
    SDPA = args.sdpa
    where = set_up_device(args.device, args.threads)
    for kernel in args.case or ["softmax", "fourier"]:
        ms = time_case(kernel, args.warmup, args.repeat, args.device, args.bf16)
        label = kernel + (" sdpa" if SDPA and kernel == "softmax" else "") + (" bf16" if args.bf16 else "")
        print(f"torch {torch.__version__} gpt {label:<13} L={L} E={E} H={H} T={T} B={B} V={V}  {where}  "
              f"{ms:8.1f} ms/step  {B * T / (ms * 1e-3):7.0f} tok/s", flush=True)


if __name__ == "__main__":
    main()
