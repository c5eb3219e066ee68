#!/usr/bin/env python3
"""One torch.optim.Adam step (lr 1e-4, fixed gradients, float32, CPU) over a parameter list
given as shapes, to compare with `harmonic bench --optimizer` (tools/bench/optimizer_case.cpp),
which prints each model's list as "optimizer-shapes NAME [[256,784],...]". Times the three
implementations: foreach=False (a loop of per-tensor ops), foreach=True (torch._foreach_*
ops over the whole list) and fused=True (one fused kernel over the list). Prints ms per step
(median over timed runs).
Usage:
  OMP_NUM_THREADS=1 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_optimizer_torch.py \\
      --name gpt --shapes '[[8192,128],[128]]' --threads 1
"""
import argparse
import json
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--shapes", required=True, help="JSON list of parameter shapes")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    shapes = json.loads(a.shapes)
    numel = sum(torch.Size(s).numel() for s in shapes)
    gen = torch.Generator().manual_seed(1234)
    for impl, kw in (("foreach=False", {"foreach": False}), ("foreach=True", {"foreach": True}),
                     ("fused=True", {"fused": True})):
        params = [torch.nn.Parameter(torch.randn(s, generator=gen)) for s in shapes]
        for p in params:
            p.grad = torch.randn(p.shape, generator=gen) * 1e-3
        try:
            opt = torch.optim.Adam(params, lr=1e-4, **kw)
            for _ in range(a.warmup):
                opt.step()
        except (RuntimeError, TypeError) as e:  # fused Adam on the CPU needs torch >= 2.4
            print(f"torch optimizer {a.name:<12} adam {impl:<14} threads={a.threads}  unavailable: {e}")
            continue
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            opt.step()
            times.append((time.perf_counter() - t0) * 1e3)
        print(f"torch {torch.__version__} optimizer {a.name:<12} adam {impl:<14} tensors={len(shapes)} params={numel} "
              f"threads={a.threads}  step {statistics.median(times):9.4f} ms", flush=True)


if __name__ == "__main__":
    main()
