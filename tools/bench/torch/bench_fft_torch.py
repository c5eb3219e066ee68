#!/usr/bin/env python3
"""PyTorch peer of `harmonic bench --fft`: torch.fft.rfft and torch.stft (float32, CPU) on the same
shapes, forward (no grad) and forward + backward of the sum of the real view. With --compare it
also runs `harmonic bench --fft --case NAME` case by case, alternating which framework goes
first over --rounds rounds, and prints the ratio Harmonic / torch of the medians (< 1 means
Harmonic is faster).

    ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_fft_torch.py --compare build/harmonic --threads 1 --rounds 3
"""
import argparse
import os
import re
import statistics
import subprocess
import time

import torch

# name -> (rows, length, n_fft, hop); n_fft = 0: rfft
CASES = {
    "rfft_256x4096": (256, 4096, 0, 0),
    "rfft_256x1000": (256, 1000, 0, 0),
    "rfft_64x4099": (64, 4099, 0, 0),
    "stft_16x88200": (16, 88200, 1024, 256),
}


def time_ms(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    inner, t = 1, 0.0
    while True:  # one timed run lasts >= 1 ms, like tools/bench/timing.h
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        t = time.perf_counter() - t0
        if t >= 1e-3:
            break
        inner *= 2
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        runs.append((time.perf_counter() - t0) / inner)
    return statistics.median(runs) * 1e3


def torch_case(name, repeat, warmup):
    rows, length, n_fft, hop = CASES[name]
    torch.manual_seed(0)
    x = torch.randn(rows, length, requires_grad=True)
    window = torch.hann_window(n_fft) if n_fft else None

    def op():
        if n_fft:
            s = torch.stft(x, n_fft, hop_length=hop, window=window, center=True, pad_mode="reflect",
                           return_complex=True)
        else:
            s = torch.fft.rfft(x)
        return torch.view_as_real(s)

    def fwd():
        with torch.no_grad():
            op()

    def fwd_bwd():
        op().sum().backward()
        x.grad = None

    return time_ms(fwd, repeat, warmup), time_ms(fwd_bwd, repeat, warmup)


def harmonic_case(binary, name, args):
    cmd = [binary, "bench", "--fft", "--case", name, "--threads", str(args.threads), "--repeat", str(args.repeat),
           "--warmup", str(args.warmup)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"fwd\s+([\d.]+) ms\s+fwd\+bwd\s+([\d.]+) ms", out)
    if not m:
        raise RuntimeError(f"unexpected output of {' '.join(cmd)}: {out}")
    return float(m.group(1)), float(m.group(2))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", action="append", choices=list(CASES), help="cases to run (default: all)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--compare", metavar="HARMONIC", help="path of the harmonic executable to compare with")
    p.add_argument("--rounds", type=int, default=3, help="with --compare: interleaved rounds per case")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    print(f"threads={args.threads} torch {torch.__version__}")
    for name in args.case or list(CASES):
        if not args.compare:
            fwd, fb = torch_case(name, args.repeat, args.warmup)
            print(f"torch {name:<16} fwd {fwd:9.3f} ms  fwd+bwd {fb:9.3f} ms", flush=True)
            continue
        runs = {"harmonic": [], "torch": []}
        for r in range(args.rounds):
            order = ["harmonic", "torch"] if r % 2 == 0 else ["torch", "harmonic"]
            for fw in order:
                runs[fw].append(harmonic_case(args.compare, name, args) if fw == "harmonic" else
                                torch_case(name, args.repeat, args.warmup))
        h = [statistics.median(v[i] for v in runs["harmonic"]) for i in (0, 1)]
        t = [statistics.median(v[i] for v in runs["torch"]) for i in (0, 1)]
        print(f"{name:<16} fwd harmonic {h[0]:9.3f} ms torch {t[0]:9.3f} ms ratio {h[0] / t[0]:5.2f}   "
              f"fwd+bwd harmonic {h[1]:9.3f} ms torch {t[1]:9.3f} ms ratio {h[1] / t[1]:5.2f}", flush=True)


if __name__ == "__main__":
    main()
