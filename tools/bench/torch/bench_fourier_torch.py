#!/usr/bin/env python3
"""Composed eager PyTorch Fourier head log-pmf, timed at the size of `harmonic bench --fourier`
(B=256, N=64, m=4096, float32, CPU), to compare with Harmonic's fused fourier_head_log_pmf (ops/fourier_head.h).

Two compositions:
  paper: the reference code's route -- autocorrelation c_k via a complex conv-like sum, then
         p(b_j) = 1/2 + Re(sum_k c_k/c_0 e^{i pi k b_j}) as a complex matmul, normalise, log.
  real:  the complex-free form -- [R | I] = coeffs @ table, q = R^2 + I^2, y = q / sum q, log.
Usage (the peer's python: ~/.cache/harmonic/torch-venv/bin/python from .ci/install-deps --with-torch): python tools/bench/torch/bench_fourier_torch.py [--threads 2] [--reps 50]
"""
import argparse
import math
import time

import torch


def bin_centres(m, dtype):
    return -1 + (2 * torch.arange(m, dtype=dtype) + 1) / m


def paper_log_pmf(coeffs, m):
    n = coeffs.shape[-1] // 2 - 1
    a = torch.complex(coeffs[..., : n + 1], coeffs[..., n + 1 :])  # (B, N+1)
    # c_k = sum_l a_l conj(a_{l+k}), k = 0..N
    c = torch.stack([(a[..., : n + 1 - k] * a[..., k:].conj()).sum(-1) for k in range(n + 1)], -1)
    k = torch.arange(1, n + 1, dtype=coeffs.dtype)
    e = torch.exp(1j * math.pi * k[:, None] * bin_centres(m, coeffs.dtype)[None, :])  # (N, m)
    p = 0.5 + ((c[..., 1:] / c[..., :1]) @ e).real
    y = p / p.sum(-1, keepdim=True)
    return torch.log(y + 1e-5)


def make_table(n, m, dtype):
    ang = math.pi * torch.arange(n + 1, dtype=torch.float64)[:, None] * bin_centres(m, torch.float64)[None, :]
    c, s = torch.cos(ang), torch.sin(ang)
    return torch.cat([torch.cat([c, -s], 1), torch.cat([s, c], 1)], 0).to(dtype)  # (2N+2, 2m)


def real_log_pmf(coeffs, table, m):
    z = coeffs @ table
    q = z[..., :m] ** 2 + z[..., m:] ** 2
    y = q / q.sum(-1, keepdim=True)
    return torch.log(y + 1e-5)


def timeit(fn, reps):
    """(min, median) milliseconds per call: on a shared machine the minimum is the stable number."""
    for _ in range(5):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[0], times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--freqs", type=int, default=64)
    ap.add_argument("--bins", type=int, default=4096)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    b, n, m = args.batch, args.freqs, args.bins
    coeffs = torch.randn(b, 2 * (n + 1), requires_grad=True)
    g = torch.randn(b, m)
    table = make_table(n, m, torch.float32)
    # The two compositions agree (checks the sign convention matches Harmonic's).
    with torch.no_grad():
        c64 = coeffs.double()
        assert torch.allclose(paper_log_pmf(c64, m), real_log_pmf(c64, make_table(n, m, torch.float64), m), atol=1e-8)
    for name, f in [("paper", lambda: paper_log_pmf(coeffs, m)), ("real", lambda: real_log_pmf(coeffs, table, m))]:
        def fwd():
            with torch.no_grad():
                f()

        def fwd_bwd():
            coeffs.grad = None
            f().backward(g)

        (f_min, f_med), (b_min, b_med) = timeit(fwd, args.reps), timeit(fwd_bwd, args.reps)
        print(f"torch {name} B={b} N={n} m={m} f32 threads {args.threads}: fwd min {f_min:.3f} ms median {f_med:.3f}, "
              f"fwd+bwd min {b_min:.3f} ms median {b_med:.3f}")


if __name__ == "__main__":
    main()
