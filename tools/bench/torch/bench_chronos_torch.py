#!/usr/bin/env python3
"""The Chronos T5 in eager PyTorch, to compare with `harmonic bench --chronos`
(tools/bench/chronos_case.cpp, models/chronos.h, models/t5.h). The same T5 as Harmonic's, written
in plain torch.nn the way Hugging Face's T5 is: pre-norm blocks with RMS norm (weight only),
bias-free linears, attention without 1/sqrt(d) scaling, relative position buckets (32 buckets,
max distance 128) from each stack's one table, added with the padding mask once per forward
(bidirectional in the encoder, causal in the decoder, none in cross-attention), ReLU feed-forward,
dropout on embeddings, attention probabilities, after the activation, on each residual branch
and after the final norms; an untied lm head restricted to the 4094 bin tokens. Init as
Harmonic's (Hugging Face's factor-1 T5 init, the untied head N(0, d_model^-1/2)).

Cases (as the Harmonic ones):
  train        one step (forward, cross-entropy, zero_grad, backward, AdamW(1e-3, wd 0.01)) of
               d_model 64, 2 + 2 layers, 4 heads of 16, d_ff 256, 4096 tokens, dropout 0.1,
               context 128 (+ EOS) and horizon 16, batch 32
  train_quick  the same at d_model 32, 1 + 1 layers, 2 heads of 16, d_ff 128, no dropout,
               context 32 + horizon 8, batch 32
  train_mini   (only when named) the training step at the paper's size, t5-efficient-mini: d_model
               384, 4 + 4 layers, 8 heads of 64, d_ff 1536, context 512 + horizon 64, batch 32
  forecast     20 sample paths x 16 steps for 8 series of the default model in eval mode under
               no_grad: mean scaling and uniform binning of the context, the encoder once, memory
               repeated for the paths, cross-attention keys/values projected once, a self-attention
               KV cache, one inverse-CDF draw per path and step
Prints ms and tokens/s like Harmonic, the parameter count and the loss at init (~ln 4094 = 8.32).
Timing: time_ms of tools/bench/torch/bench_torch.py (the method of tools/bench/timing.h).
Usage (the peer's python: ~/.cache/harmonic/torch-venv/bin/python from .ci/install-deps --with-torch):
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_chronos_torch.py --threads 1
  python3 tools/bench/torch/bench_chronos_torch.py --device cuda [--bf16]   # on a GPU machine
On cuda (cuda:0, against `harmonic bench --chronos --device cuda`) the model is initialised on the
CPU and moved (the same weights), the inputs are drawn on the CPU and moved, the forecast's draws
come from the device's generator; TF32 stays off (float32) unless --bf16: bf16 autocast around
the forward and loss (the training steps and the forecast), float32 weights and AdamW.
"""
import argparse
import contextlib
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_torch  # noqa: E402
from bench_torch import time_ms  # noqa: E402
from peer_timing import add_timing_args, set_up_device  # noqa: E402

V, PAD, EOS, SPECIAL, BUCKETS, MAX_DISTANCE, LOW, HIGH = 4096, 0, 1, 2, 32, 128, -15.0, 15.0
SIZES = {  # name -> (d_model, layers, heads, d_kv, d_ff, dropout, context, horizon)
    "train": (64, 2, 4, 16, 256, 0.1, 128, 16),
    "train_quick": (32, 1, 2, 16, 128, 0.0, 32, 8),
    "forecast": (64, 2, 4, 16, 256, 0.1, 128, 16),
    "train_mini": (384, 4, 8, 64, 1536, 0.1, 512, 64),
}
BATCH, SERIES, PATHS, HORIZON = 32, 8, 20, 16
BF16 = False  # --bf16: autocast on cuda


def autocast():
    """bf16 autocast on cuda around forward and loss with --bf16; nothing otherwise."""
    return torch.autocast(device_type="cuda", dtype=torch.bfloat16) if BF16 else contextlib.nullcontext()


def relative_position_bucket(rel, bidirectional):
    """Hugging Face's T5Attention._relative_position_bucket (rel = key - query)."""
    n, bucket = BUCKETS, torch.zeros_like(rel)
    if bidirectional:
        n //= 2
        bucket += (rel > 0).long() * n
        rel = rel.abs()
    else:
        rel = -torch.clamp(rel, max=0)
    exact = n // 2
    large = exact + (torch.log(rel.float() / exact) / math.log(MAX_DISTANCE / exact) * (n - exact)).long()
    large = torch.clamp(large, max=n - 1)
    return bucket + torch.where(rel < exact, rel, large)


class RelativeBias(nn.Module):
    def __init__(self, heads, bidirectional, d_model):
        super().__init__()
        self.table = nn.Embedding(BUCKETS, heads)
        nn.init.normal_(self.table.weight, 0.0, d_model ** -0.5)
        self.bidirectional = bidirectional

    def forward(self, q_len, k_len, q_offset=0):  # -> (1, H, q, k)
        device = self.table.weight.device
        q = torch.arange(q_offset, q_offset + q_len, device=device).unsqueeze(1)
        k = torch.arange(k_len, device=device).unsqueeze(0)
        return self.table(relative_position_bucket(k - q, self.bidirectional)).permute(2, 0, 1).unsqueeze(0)


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


class Attention(nn.Module):
    def __init__(self, d_model, heads, d_kv, drop):
        super().__init__()
        inner = heads * d_kv
        self.q, self.k, self.v = (nn.Linear(d_model, inner, bias=False) for _ in range(3))
        self.o = nn.Linear(inner, d_model, bias=False)
        nn.init.normal_(self.q.weight, 0.0, (d_model * d_kv) ** -0.5)
        nn.init.normal_(self.k.weight, 0.0, d_model ** -0.5)
        nn.init.normal_(self.v.weight, 0.0, d_model ** -0.5)
        nn.init.normal_(self.o.weight, 0.0, inner ** -0.5)
        self.heads, self.d_kv, self.drop = heads, d_kv, drop

    def split(self, x):  # (B, T, H D) -> (B, H, T, D)
        return x.view(x.size(0), x.size(1), self.heads, self.d_kv).transpose(1, 2)

    def forward(self, x, kv, bias, cache=None, static=False):
        """bias (B or 1, H, T, S) additive (positions and masks); cache: dict of k, v (self: appended;
        static: projected from kv once)."""
        q = self.split(self.q(x))
        if cache is not None and static and "k" in cache:
            k, v = cache["k"], cache["v"]
        else:
            k, v = self.split(self.k(kv)), self.split(self.v(kv))
            if cache is not None and not static and "k" in cache:
                k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
            if cache is not None:
                cache["k"], cache["v"] = k, v
        scores = q @ k.transpose(-2, -1)
        if bias is not None:
            scores = scores + bias
        p = F.dropout(scores.softmax(-1), self.drop, self.training)
        y = (p @ v).transpose(1, 2).reshape(x.size(0), x.size(1), -1)
        return self.o(y)


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, drop):
        super().__init__()
        self.wi, self.wo = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)
        nn.init.normal_(self.wi.weight, 0.0, d_model ** -0.5)
        nn.init.normal_(self.wo.weight, 0.0, d_ff ** -0.5)
        self.drop = drop

    def forward(self, x):
        return self.wo(F.dropout(F.relu(self.wi(x)), self.drop, self.training))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, heads, d_kv, d_ff, drop):
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(d_model), RMSNorm(d_model)
        self.attn, self.ff, self.drop = Attention(d_model, heads, d_kv, drop), FeedForward(d_model, d_ff, drop), drop

    def forward(self, x, bias):
        h = self.norm1(x)
        x = x + F.dropout(self.attn(h, h, bias), self.drop, self.training)
        return x + F.dropout(self.ff(self.norm2(x)), self.drop, self.training)


class DecoderLayer(nn.Module):
    def __init__(self, d_model, heads, d_kv, d_ff, drop):
        super().__init__()
        self.norm1, self.norm2, self.norm3 = RMSNorm(d_model), RMSNorm(d_model), RMSNorm(d_model)
        self.self_attn, self.cross_attn = Attention(d_model, heads, d_kv, drop), Attention(d_model, heads, d_kv, drop)
        self.ff, self.drop = FeedForward(d_model, d_ff, drop), drop

    def forward(self, x, memory, self_bias, memory_bias, cache=None):
        h = self.norm1(x)
        x = x + F.dropout(self.self_attn(h, h, self_bias, cache and cache["self"]), self.drop, self.training)
        h = self.norm2(x)
        x = x + F.dropout(self.cross_attn(h, memory, memory_bias, cache and cache["cross"], static=True), self.drop,
                          self.training)
        return x + F.dropout(self.ff(self.norm3(x)), self.drop, self.training)


class ChronosT5(nn.Module):
    def __init__(self, d_model, layers, heads, d_kv, d_ff, drop):
        super().__init__()
        self.shared = nn.Embedding(V, d_model)
        nn.init.normal_(self.shared.weight, 0.0, 1.0)
        self.encoder = nn.ModuleList(EncoderLayer(d_model, heads, d_kv, d_ff, drop) for _ in range(layers))
        self.decoder = nn.ModuleList(DecoderLayer(d_model, heads, d_kv, d_ff, drop) for _ in range(layers))
        self.encoder_norm, self.decoder_norm = RMSNorm(d_model), RMSNorm(d_model)
        self.encoder_bias, self.decoder_bias = RelativeBias(heads, True, d_model), RelativeBias(heads, False, d_model)
        self.lm_head = nn.Linear(d_model, V, bias=False)
        nn.init.normal_(self.lm_head.weight, 0.0, d_model ** -0.5)
        self.drop = drop

    @staticmethod
    def pad_bias(context):  # (B, S) -> (B, 1, 1, S): -inf at PAD
        bias = torch.zeros(context.shape, device=context.device).masked_fill(context == PAD, float("-inf"))
        return bias[:, None, None, :]

    def encode(self, context):  # (B, C + 1) -> (B, C + 1, E)
        s = context.size(1)
        bias = self.encoder_bias(s, s) + self.pad_bias(context)  # (B, H, S, S), shared by the layers
        x = F.dropout(self.shared(context), self.drop, self.training)
        for layer in self.encoder:
            x = layer(x, bias)
        return F.dropout(self.encoder_norm(x), self.drop, self.training)

    def decode(self, ids, memory, context, caches=None):  # ids (B, T) -> bin logits (B, T, bins)
        t = ids.size(1)
        past = caches[0]["self"]["k"].size(2) if caches and "k" in caches[0]["self"] else 0
        self_bias = self.decoder_bias(t, past + t, past)
        if t > 1:
            blocked = torch.ones(t, past + t, dtype=torch.bool, device=ids.device).triu(past + 1)
            self_bias = self_bias.masked_fill(blocked, float("-inf"))
        memory_bias = self.pad_bias(context)
        x = F.dropout(self.shared(ids), self.drop, self.training)
        for i, layer in enumerate(self.decoder):
            x = layer(x, memory, self_bias, memory_bias, caches[i] if caches else None)
        h = F.dropout(self.decoder_norm(x), self.drop, self.training)
        return self.lm_head(h)[..., SPECIAL:]

    def loss(self, context, labels):  # labels (B, T) bins
        dec = torch.cat([torch.full((labels.size(0), 1), PAD, device=labels.device), labels[:, :-1] + SPECIAL], 1)
        logits = self.decode(dec, self.encode(context), context)
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), labels.reshape(-1))


def make_model(case, device):
    d_model, layers, heads, d_kv, d_ff, drop, context, horizon = SIZES[case]
    torch.manual_seed(1234)
    return ChronosT5(d_model, layers, heads, d_kv, d_ff, drop).to(device), context, horizon


def time_train(case, warmup, repeat, device):
    model, C, T = make_model(case, device)
    model.train()
    context = torch.cat([torch.randint(SPECIAL, V, (BATCH, C)), torch.full((BATCH, 1), EOS)], 1).to(device)
    labels = torch.randint(0, V - SPECIAL, (BATCH, T)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    with autocast():
        init_loss = model.loss(context, labels).item()

    def step():
        with autocast():
            loss = model.loss(context, labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    ms = time_ms(step, repeat, warmup)
    return model, ms, BATCH * (C + 1 + T) / (ms * 1e-3), init_loss


@torch.no_grad()
def forecast(model, histories, C):
    """histories (N, C) -> sampled values (N, PATHS, HORIZON); the encoder runs once."""
    n, device = histories.size(0), histories.device
    scale = histories.abs().mean(1, keepdim=True).clamp_min(1e-10)  # mean scaling
    width = (HIGH - LOW) / (V - SPECIAL)
    bins = ((histories / scale - LOW) / width).floor().clamp(0, V - SPECIAL - 1).long()
    context = torch.cat([bins + SPECIAL, torch.full((n, 1), EOS, device=device)], 1)  # (N, C + 1)
    with autocast():
        memory = model.encode(context).repeat_interleave(PATHS, 0)  # (N S, C + 1, E): path s of series b is b S + s
    context = context.repeat_interleave(PATHS, 0)
    caches = [{"self": {}, "cross": {}} for _ in model.decoder]
    nxt, drawn = torch.full((n * PATHS, 1), PAD, device=device), []
    for _ in range(HORIZON):
        with autocast():
            logits = model.decode(nxt, memory, context, caches)[:, 0]
        probs = logits.float().softmax(-1)  # (N S, bins)
        cdf = probs.cumsum(-1)
        u = torch.rand(n * PATHS, 1, device=device) * cdf[:, -1:]
        b = torch.searchsorted(cdf, u).clamp_max(V - SPECIAL - 1)  # inverse-CDF draw
        drawn.append(b)
        nxt = b + SPECIAL
    centres = LOW + (torch.cat(drawn, 1).double() + 0.5) * width
    return centres.view(n, PATHS, HORIZON) * scale.double().unsqueeze(2)


def time_forecast(warmup, repeat, device):
    model, C, _ = make_model("forecast", device)
    model.eval()
    i = torch.arange(C, dtype=torch.float64)
    histories = torch.stack([10.0 + s + 3.0 * torch.sin(2 * math.pi * i / (8.0 + 3.0 * s)) for s in range(SERIES)])
    histories = (histories + 0.3 * torch.randn(SERIES, C, dtype=torch.float64)).float().to(device)
    ms = time_ms(lambda: forecast(model, histories, C), repeat, warmup)
    return model, ms, SERIES * PATHS * HORIZON / (ms * 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_timing_args(ap, repeat=5)
    ap.add_argument("--case", action="append", choices=list(SIZES))
    ap.add_argument("--bf16", action="store_true", help="cuda: bf16 autocast")
    args = ap.parse_args()
    if args.bf16 and args.device == "cpu":
        ap.error("--bf16 needs --device cuda")
    global BF16
    BF16 = args.bf16
    bench_torch.DEVICE = args.device  # time_ms synchronises the device around its timed runs
    where = set_up_device(args.device, args.threads)
    precision = " bf16" if args.bf16 else ""
    for case in args.case or [c for c in SIZES if c != "train_mini"]:
        d_model, layers, heads, _, _, _, C, T = SIZES[case]
        if case == "forecast":
            model, ms, rate = time_forecast(args.warmup, args.repeat, args.device)
            label = f"chronos {case:<11} E={d_model} L={layers}+{layers} C={C} series={SERIES} paths={PATHS} " \
                    f"horizon={HORIZON}{precision}"
            print(f"torch {label:<62} {where}  {ms:8.1f} ms/forecast  {rate:7.0f} sampled tok/s  "
                  f"params {sum(p.numel() for p in model.parameters())}", flush=True)
        else:
            model, ms, rate, loss = time_train(case, args.warmup, args.repeat, args.device)
            label = f"chronos {case:<11} E={d_model} L={layers}+{layers} H={heads} C={C} T={T} B={BATCH}{precision}"
            print(f"torch {label:<62} {where}  {ms:8.1f} ms/step  {rate:7.0f} tok/s  "
                  f"params {sum(p.numel() for p in model.parameters())}  loss@init {loss:.3f}", flush=True)


if __name__ == "__main__":
    main()
