#!/usr/bin/env python3
"""PyTorch step-loop reference timing for the FRU (nn/fru.h): forward + backward of the
pixel-MNIST shapes (B=256, T=784, K=60, d=10, r=60, units=200), the same recurrence as
Harmonic's nn::FRU. The loss is the last step's output summed. By default the output layer runs at
the last step only, the classifier of NOTES section 3 (Harmonic: nn::FRU::forward_last, `harmonic
bench --fourier --case fru`); --all-steps runs it at every step as a sequence model would
(nn::FRU::forward, --case fru_all_steps).
Usage: bench_fru_torch.py [B T K d] [--threads N] [--reps R] [--all-steps]"""
import argparse
import math
import time

import torch


def fru_forward(x, p, freqs, decay, T, all_steps):
    B, steps, _ = x.shape
    K = freqs.shape[0]
    d = p["b_phi"].shape[0]
    t = torch.arange(steps, dtype=x.dtype).unsqueeze(1)
    coef = torch.cos(2 * math.pi * freqs * t / T + 2 * math.pi * p["theta"]) / T  # (T, K)
    mu = torch.zeros(B, K * d, dtype=x.dtype)
    outs = []
    for s in range(steps):
        r = torch.relu(mu @ p["w_r"].t() + p["b_r"])
        phi = torch.relu(torch.cat([x[:, s], r], 1) @ p["w_phi"].t() + p["b_phi"])
        mu = (mu.view(B, K, d) * decay.view(K, 1) + coef[s].view(K, 1) * phi.unsqueeze(1)).view(B, K * d)
        if all_steps:
            outs.append(mu)
    if not all_steps:
        return torch.relu(mu @ p["w_o"].t() + p["b_o"]).unsqueeze(1)  # (B, 1, units)
    mus = torch.stack(outs, 1)  # (B, T, K d)
    return torch.relu(mus @ p["w_o"].t() + p["b_o"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, default=[256, 784, 60, 10])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--all-steps", action="store_true", help="output layer at every step, not only the last")
    a = ap.parse_args()
    B, T, K, d = a.sizes
    R, U = 60, 200
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    tn = lambda *s: (torch.randn(*s) * 0.1).clamp(-0.2, 0.2).requires_grad_()
    p = dict(w_r=tn(R, K * d), b_r=torch.zeros(R, requires_grad=True), w_phi=tn(d, 1 + R),
             b_phi=torch.zeros(d, requires_grad=True), w_o=tn(U, K * d), b_o=torch.zeros(U, requires_grad=True),
             theta=tn(K))
    freqs = torch.tensor([0.0] + list(torch.logspace(math.log10(0.25), math.log10(T), K - 1).tolist()))[:K]
    decay = torch.ones(K)
    decay[0] = 0.0
    x = torch.rand(B, T, 1)
    times = []
    for _ in range(a.reps + 1):
        t0 = time.perf_counter()
        o = fru_forward(x, p, freqs, decay, T, a.all_steps)
        o[:, -1].sum().backward()
        times.append(time.perf_counter() - t0)
    best = min(times[1:])
    form = "all-steps output" if a.all_steps else "last-step output"
    print(f"torch {torch.__version__} threads={a.threads} B={B} T={T} K={K} d={d} ({form}): fwd+bwd {best * 1e3:.1f} ms (best of {a.reps})")


if __name__ == "__main__":
    main()
