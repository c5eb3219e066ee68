#!/usr/bin/python3
"""PyTorch peer of `harmonic bench --attention` (tools/bench/attention_cases.cpp): causal attention
in float32 with TF32 off, forward (no grad) and forward+backward of a sum, timed with CUDA events
(median of --repeat calls after --warmup) on --device cuda, wall clock on the CPU.
  sdpa_torch_BxHxNxD          F.scaled_dot_product_attention(is_causal=True) (torch picks its backend)
  sdpa_materialised_BxHxNxD   softmax(q k^T scale + causal mask) v, the weights materialised
  fourier_attention_materialised_8x8xNx16     the FourierFormer logits materialised (B, H, N, N, D),
                                              N = 512, 1024, 4096 (out of memory past ~1024 on 141 GB)
--bf16 (cuda) runs each call under torch.autocast(bfloat16), as `harmonic bench --attention --precision
bf16`; its cases are named *_bf16_<shape> (F.scaled_dot_product_attention then takes its bf16 kernels).
Usage: python3 tools/bench/torch/bench_attention_torch.py --device cuda [--repeat 10] [--warmup 3] [--case PREFIX] [--bf16]"""
import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F

SDPA_SHAPES = [(8, 16, 1024, 64), (8, 12, 1024, 64), (8, 12, 256, 64), (8, 12, 4096, 64), (4, 16, 1024, 128),
               (8, 16, 1024, 128), (8, 16, 4096, 128)]
FOURIER_SHAPES = [(8, 8, 512, 16), (8, 8, 1024, 16), (8, 8, 4096, 16)]


def materialised(q, k, v):
    n_q, n_k = q.shape[-2], k.shape[-2]
    s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    blocked = torch.ones(n_q, n_k, dtype=torch.bool, device=q.device).triu(n_k - n_q + 1)
    return torch.softmax(s.masked_fill(blocked, float("-inf")), -1) @ v


def fourier_materialised(q, k, v, R, p=4):
    n = q.shape[-2]
    x = R * (q.unsqueeze(3) - k.unsqueeze(2))  # (B, H, N, N, D)
    logits = p * torch.log(torch.abs(torch.sin(x) / x)).sum(-1)
    blocked = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(logits.masked_fill(blocked, float("-inf")), -1) @ v


def time_ms(fn, device, repeat, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def time_pair(f, leaves, device, repeat, warmup):
    with torch.no_grad():
        fwd = time_ms(lambda: f(*leaves), device, repeat, warmup)

    def step():
        f(*leaves).sum().backward()
        for x in leaves:
            x.grad = None

    return fwd, time_ms(step, device, repeat, warmup)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--case", action="append", default=[], help="name prefix (repeatable); default all")
    ap.add_argument("--bf16", action="store_true", help="cuda: every call under bf16 autocast")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("no CUDA device: nothing to time")
        return
    where = "cuda:0" if device.type == "cuda" else f"threads={torch.get_num_threads()}"
    picked = lambda name: not args.case or any(name.startswith(c) for c in args.case)

    def leaves(shape, qk_scale):
        g = torch.Generator(device="cpu").manual_seed(1234)
        return [(sc * torch.randn(*shape, generator=g)).to(device).requires_grad_()
                for sc in (qk_scale, qk_scale, 1.0)]

    def report(name, fwd, fwd_bwd):
        print(f"{name:<36} {where}  fwd {fwd:9.4f} ms  fwd+bwd {fwd_bwd:9.4f} ms", flush=True)

    def under_autocast(f):
        if not args.bf16:
            return f
        def g(*xs):
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                return f(*xs)
        return g

    for shape in SDPA_SHAPES:
        dims = "x".join(str(d) for d in shape)
        for label, f in (("torch", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
                         ("materialised", materialised)):
            name = f"sdpa_{label}{'_bf16' if args.bf16 else ''}_{dims}"
            if not picked(name):
                continue
            try:
                report(name, *time_pair(under_autocast(f), leaves(shape, 1.0), device, args.repeat, args.warmup))
            except torch.OutOfMemoryError:
                print(f"{name:<36} {where}  out of memory", flush=True)
            if device.type == "cuda":
                torch.cuda.empty_cache()
    for shape in FOURIER_SHAPES:
        name = f"fourier_attention_materialised{'_bf16' if args.bf16 else ''}_" + "x".join(str(d) for d in shape)
        if not picked(name) or (device.type != "cuda" and shape[2] > 512):
            continue
        R = torch.tensor(2.0, device=device, requires_grad=True)
        try:
            report(name, *time_pair(under_autocast(fourier_materialised), leaves(shape, 0.5) + [R], device, args.repeat,
                                    args.warmup))
        except torch.OutOfMemoryError:
            print(f"{name:<36} {where}  out of memory", flush=True)
        if device.type == "cuda":
            torch.cuda.empty_cache()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0) if device.type == 'cuda' else 'cpu'}, "
          f"float32{' under bf16 autocast' if args.bf16 else ''}, TF32 off")


if __name__ == "__main__":
    main()
