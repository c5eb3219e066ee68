#!/usr/bin/python3
"""PyTorch eager baseline for Harmonic's fused fourier_attention: the FourierFormer
kernel written the obvious way, materialising the (B, H, N, N, D) difference tensor.
Times forward+backward and reports peak RSS growth. Usage: ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_fourier_attention_torch.py [B H N D reps [threads]]"""
import resource
import sys
import time

import torch


def fourier_attention(q, k, v, R, p=4):
    x = R * (q.unsqueeze(3) - k.unsqueeze(2))        # (B, H, N, N, D)
    logits = p * torch.log(torch.abs(torch.sin(x) / x)).sum(-1)  # (B, H, N, N)
    return torch.softmax(logits, -1) @ v


def main():
    B, H, N, D, reps = (int(a) for a in (sys.argv[1:6] if len(sys.argv) > 5 else (8, 8, 256, 16, 5)))
    if len(sys.argv) > 6:
        torch.set_num_threads(int(sys.argv[6]))  # this torch build starts with 1 thread
    torch.manual_seed(0)
    q = (0.5 * torch.randn(B, H, N, D)).requires_grad_()
    k = (0.5 * torch.randn(B, H, N, D)).requires_grad_()
    v = torch.randn(B, H, N, D).requires_grad_()
    R = torch.tensor(2.0, requires_grad=True)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    fourier_attention(q, k, v, R).sum().backward()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fourier_attention(q, k, v, R).sum().backward()
        times.append(time.perf_counter() - t0)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"torch {torch.__version__} threads={torch.get_num_threads()} B={B} H={H} N={N} D={D}: "
          f"fwd+bwd best {min(times) * 1e3:.1f} ms, median {sorted(times)[len(times) // 2] * 1e3:.1f} ms, "
          f"peak RSS growth {(rss1 - rss0) / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
