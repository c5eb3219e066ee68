#!/usr/bin/env python3
"""PyTorch peer of `harmonic bench --recurrent`: forward + backward of the sum of the outputs of
one torch.nn.LSTM / GRU / RNN layer (float32, time-major input, default init, zero initial
state), at the FRU paper's shapes: pixel (T=784, B=256, in=1, H=200) and text (T=300, B=32,
in=128, H=128). Prints the median milliseconds per step over --reps steps after --warmup.
On --device cuda (cuda:0, against `harmonic bench --recurrent --device cuda`) the layer is
initialised on the CPU and moved (the same weights) and runs cuDNN's fused RNN, the peer a
PyTorch user gets; TF32 stays off (float32) unless --bf16 (bf16 autocast around the forward
and the sum; float32 weights).
Usage: bench_recurrent_torch.py [--case lstm_pixel ...] [--threads N] [--reps R] [--warmup W]
                                [--device cuda [--bf16]]"""
import argparse
import contextlib
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import add_timing_args, median_step_ms, set_up_device  # noqa: E402

SHAPES = {"pixel": (784, 256, 1, 200), "text": (300, 32, 128, 128)}  # T, B, in, H
LAYERS = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}
CASES = [f"{kind}_{shape}" for kind in LAYERS for shape in SHAPES]


def time_case(name, reps, warmup, device="cpu", bf16=False):
    kind, shape = name.split("_")
    T, B, n_in, H = SHAPES[shape]
    torch.manual_seed(0)
    layer = LAYERS[kind](n_in, H).to(device)
    x = torch.rand(T, B, n_in).to(device)
    def step():
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext():
            out, _ = layer(x)
            total = out.float().sum()
        total.backward()
        layer.zero_grad(set_to_none=True)

    return median_step_ms(step, warmup, reps, device), T, B, n_in, H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", choices=CASES, help="cases to run (default: all)")
    add_timing_args(ap, repeat=3, repeat_flags=("--reps", "--repeat"))
    ap.add_argument("--bf16", action="store_true", help="cuda: bf16 autocast")
    a = ap.parse_args()
    if a.bf16 and a.device == "cpu":
        ap.error("--bf16 needs --device cuda")
    where = set_up_device(a.device, a.threads)
    for name in a.case or CASES:
        ms, T, B, n_in, H = time_case(name, a.repeat, a.warmup, a.device, a.bf16)
        label = f"{name:<20} T={T} B={B} in={n_in} H={H}" + (" bf16" if a.bf16 else "")
        print(f"torch {label:<44} {where}  fwd+bwd {ms:9.1f} ms", flush=True)


if __name__ == "__main__":
    main()
