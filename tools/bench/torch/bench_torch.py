#!/usr/bin/env python3
"""The `harmonic bench` standard suite in PyTorch, timed the same way, printing the same lines;
with --compare it also runs `harmonic bench` case by case, interleaved with PyTorch in the same
run, and prints a table with the ratio torch ms / harmonic ms (> 1: Harmonic is faster).

    ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_torch.py --threads 1
    ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_torch.py --compare build/harmonic --threads 2 --rounds 3
    python3 tools/bench/torch/bench_torch.py --compare build/harmonic --device cuda   # on a GPU machine

Method (as tools/cli/cmd_bench.cpp): warm up, pick an inner count so one timed run lasts >= 1 ms,
report the median over --repeat runs of (run time / inner count). Forward runs under no_grad;
forward+backward calls backward with a ones gradient and drops the input gradients after
each call. On cuda the device is synchronised before and after each timed run (TF32 off, as
Harmonic's default). With --compare each case runs --rounds times, alternating which framework goes
first, and the table shows the fastest round of each (the least disturbed by other load).
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F


DEVICE = "cpu"


def sync():
    if DEVICE != "cpu":
        torch.cuda.synchronize()


def standard_cases(dtype):
    """name -> (make inputs, fn); the same cases as standard_cases() in tools/cli/cmd_bench.cpp."""
    g = torch.Generator().manual_seed(1234)

    def randn(*shape):
        return torch.randn(*shape, generator=g, dtype=dtype)

    return {
        "matmul 512x512x512": (lambda: [randn(512, 512), randn(512, 512)], lambda a, b: a @ b),
        "softmax 256x1024": (lambda: [randn(256, 1024)], lambda x: F.softmax(x, dim=-1)),
        "log_softmax 256x1024": (lambda: [randn(256, 1024)], lambda x: F.log_softmax(x, dim=-1)),
        "layer_norm 256x1024": (lambda: [randn(256, 1024), randn(1024), randn(1024)],
                                lambda x, w, b: F.layer_norm(x, [1024], w, b, eps=1e-5)),
        "gelu 1024x1024": (lambda: [randn(1024, 1024)], lambda x: F.gelu(x)),
        "add 1024x1024+1024": (lambda: [randn(1024, 1024), randn(1024)], lambda a, b: a + b),
        "cross_entropy 256x1000": (lambda: [randn(256, 1000), torch.randint(0, 1000, (256,), generator=g)],
                                   lambda x, t: F.cross_entropy(x, t)),
    }


def time_ms(fn, repeat, warmup):
    """Median ms per call (see the module docstring)."""
    for _ in range(warmup):
        fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    single = max((time.perf_counter() - t0) * 1e3, 1e-4)
    inner = int(min(max(math.ceil(1.0 / single), 1), 10000))
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        runs.append((time.perf_counter() - t0) * 1e3 / inner)
    return statistics.median(runs)


def bench_case(name, dtype, repeat, warmup):
    make, fn = standard_cases(dtype)[name]
    inputs = [t.to(DEVICE) for t in make()]
    with torch.no_grad():
        fwd = time_ms(lambda: fn(*inputs), repeat, warmup)
    leaves = [t.requires_grad_(True) for t in inputs if t.is_floating_point()]
    grad = torch.ones_like(fn(*inputs))

    def step():
        fn(*inputs).backward(grad)
        for t in leaves:
            t.grad = None

    return fwd, time_ms(step, repeat, warmup)


def line(name, dtype, threads, fwd, fwd_bwd):
    ms = lambda v: f"{'-':>9}" if v is None else f"{v:9.4f}"
    return f"{name:<28} {dtype:<8} threads={threads}  fwd {ms(fwd)} ms  fwd+bwd {ms(fwd_bwd)} ms"


def harmonic_case(binary, name, args):
    cmd = [binary, "bench", "--case", name, "--threads", str(args.threads), "--repeat", str(args.repeat),
           "--warmup", str(args.warmup), "--dtype", args.dtype, "--device", args.device, "--json", "-"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    r = json.loads(out)["results"][0]
    return r["fwd_ms"], r["fwd_bwd_ms"]


def compare(args, names, dtype):
    best = {n: {"harmonic": [math.inf, math.inf], "torch": [math.inf, math.inf]} for n in names}
    for round_ in range(args.rounds):
        for name in names:
            order = ["harmonic", "torch"] if round_ % 2 == 0 else ["torch", "harmonic"]
            for fw in order:
                r = harmonic_case(args.compare, name, args) if fw == "harmonic" else \
                    bench_case(name, dtype, args.repeat, args.warmup)
                best[name][fw] = [min(a, b) for a, b in zip(best[name][fw], r)]
    where = torch.cuda.get_device_name() if args.device != "cpu" else f"threads={args.threads}"
    print(f"{where} dtype={args.dtype} repeat={args.repeat} rounds={args.rounds} "
          f"torch={torch.__version__} (ratio = torch / harmonic, > 1: Harmonic faster)")
    print(f"| {'case':<32} | {'harmonic ms':>11} | {'torch ms':>9} | {'ratio':>6} |")
    print(f"|{'-' * 34}|{'-' * 12}:|{'-' * 10}:|{'-' * 7}:|")
    rows = []
    for name in names:
        for k, label in enumerate(["fwd", "fwd+bwd"]):
            h, t = best[name]["harmonic"][k], best[name]["torch"][k]
            print(f"| {name + ' ' + label:<32} | {h:11.4f} | {t:9.4f} | {t / h:6.2f} |")
            rows.append({"case": name, "pass": label, "harmonic_ms": h, "torch_ms": t, "ratio": t / h})
    return rows


def main():
    global DEVICE
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--case", action="append", help="run only these cases (by name)")
    p.add_argument("--json", help="write the results as JSON to this file")
    p.add_argument("--compare", metavar="HARMONIC", help="path of the harmonic executable to compare with")
    p.add_argument("--rounds", type=int, default=3, help="with --compare: interleaved rounds per case")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    args = p.parse_args()
    DEVICE = args.device
    if DEVICE != "cpu":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    torch.set_num_threads(args.threads)
    dtype = {"float32": torch.float32, "float64": torch.float64}[args.dtype]
    names = list(standard_cases(dtype))
    if args.case:
        unknown = [c for c in args.case if c not in names]
        if unknown:
            sys.exit(f"unknown case(s) {unknown}; cases: {names}")
        names = [n for n in names if n in args.case]

    if args.compare:
        rows = compare(args, names, dtype)
    else:
        rows = []
        for name in names:
            fwd, fwd_bwd = bench_case(name, dtype, args.repeat, args.warmup)
            print(line(name, args.dtype, torch.get_num_threads(), fwd, fwd_bwd), flush=True)
            rows.append({"case": name, "fwd_ms": fwd, "fwd_bwd_ms": fwd_bwd})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"framework": "torch", "torch": torch.__version__, "threads": args.threads,
                       "dtype": args.dtype, "repeat": args.repeat, "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
