#!/usr/bin/env python3
"""PyTorch peer of `harmonic bench --recurrent`: forward + backward of the sum of the outputs of
one torch.nn.LSTM / GRU / RNN layer (float32, CPU, time-major input, default init, zero initial
state), at the FRU paper's shapes: pixel (T=784, B=256, in=1, H=200) and text (T=300, B=32,
in=128, H=128). Prints the median milliseconds per step over --reps steps after --warmup.
Usage: bench_recurrent_torch.py [--case lstm_pixel ...] [--threads N] [--reps R] [--warmup W]"""
import argparse
import statistics
import time

import torch

SHAPES = {"pixel": (784, 256, 1, 200), "text": (300, 32, 128, 128)}  # T, B, in, H
LAYERS = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}
CASES = [f"{kind}_{shape}" for kind in LAYERS for shape in SHAPES]


def time_case(name, reps, warmup):
    kind, shape = name.split("_")
    T, B, n_in, H = SHAPES[shape]
    torch.manual_seed(0)
    layer = LAYERS[kind](n_in, H)
    x = torch.rand(T, B, n_in)

    def step():
        out, _ = layer(x)
        out.sum().backward()
        layer.zero_grad(set_to_none=True)

    for _ in range(warmup):
        step()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, T, B, n_in, H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", choices=CASES, help="cases to run (default: all)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    for name in a.case or CASES:
        ms, T, B, n_in, H = time_case(name, a.reps, a.warmup)
        label = f"{name:<20} T={T} B={B} in={n_in} H={H}"
        print(f"torch {label:<44} threads={torch.get_num_threads()}  fwd+bwd {ms:9.1f} ms", flush=True)


if __name__ == "__main__":
    main()
