#!/usr/bin/env python3
"""One ViT training step in eager PyTorch, to compare with `harmonic bench --vit`
(tools/bench/vit_case.cpp, models/vit.h): timm's ViT layout (Conv2d patch embedding, class token,
learned positions, pre-norm blocks with LayerNorm eps 1e-6, exact GELU, final norm, a head on the
class token; tools/bench/torch/encoder_blocks_torch.py). One step = forward, cross-entropy,
zero_grad, backward, AdamW step.
  softmax, fourier  DeiT-tiny: 224 x 224 x 3, patch 16, dim 192, 12 layers, 3 heads, MLP 768,
                    1000 classes, batch 32 (fourier: FourierFormer's kernel, R init 1)
  task              the fashion-vit task's model: 28 x 28 x 1, patch 7, dim 64, 4 layers, 4 heads,
                    MLP 128, 10 classes, batch 128
--sdpa runs the softmax cases through F.scaled_dot_product_attention. On cuda TF32 stays off
unless --bf16 (autocast). Prints ms/step and images/s (time_ms of tools/bench/torch/bench_torch.py: the
method of tools/bench/timing.h).
  OMP_NUM_THREADS=2 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_vit_torch.py --threads 2
  python3 tools/bench/torch/bench_vit_torch.py --device cuda --sdpa   # on a GPU machine
"""
import argparse
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_torch  # noqa: E402
from encoder_blocks_torch import Block, training_step_ms  # noqa: E402
from peer_timing import add_timing_args, set_up_device  # noqa: E402

# (image size, channels, patch, dim, depth, heads, mlp, classes, batch)
SIZES = {"deit_tiny": (224, 3, 16, 192, 12, 3, 768, 1000, 32), "task": (28, 1, 7, 64, 4, 4, 128, 10, 128)}


class ViT(nn.Module):
    def __init__(self, size, kernel):
        super().__init__()
        s, c, p, e, depth, heads, mlp, classes, _ = SIZES[size]
        self.patch = nn.Conv2d(c, e, p, stride=p)
        self.cls = nn.Parameter(torch.zeros(1, 1, e))
        self.pos = nn.Parameter(torch.zeros(1, (s // p) ** 2 + 1, e))
        self.blocks = nn.ModuleList(Block(e, heads, mlp, kernel, 1e-6) for _ in range(depth))
        self.norm = nn.LayerNorm(e, eps=1e-6)
        self.head = nn.Linear(e, classes)

    def forward(self, images):
        x = self.patch(images).flatten(2).transpose(1, 2)  # (B, N, E)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def time_case(case, kernel, warmup, repeat, device, bf16):
    torch.manual_seed(0)
    size = "task" if case == "task" else "deit_tiny"
    s, c, _, _, _, _, _, classes, b = SIZES[size]
    model = ViT(size, kernel).to(device)
    images = torch.randn(b, c, s, s, device=device)
    labels = torch.randint(0, classes, (b,), device=device)
    return training_step_ms(model, images, labels, 1e-3, 0.05, repeat, warmup, bf16), b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_timing_args(ap, repeat=3)
    ap.add_argument("--case", action="append", choices=["softmax", "fourier", "task"])
    ap.add_argument("--sdpa", action="store_true", help="softmax attention through F.scaled_dot_product_attention")
    ap.add_argument("--bf16", action="store_true", help="cuda: bf16 autocast")
    args = ap.parse_args()
    bench_torch.DEVICE = args.device  # time_ms synchronises the device around its timed runs
    where = set_up_device(args.device, args.threads)
    for case in args.case or ["softmax", "fourier", "task"]:
        kernel = "fourier" if case == "fourier" else ("sdpa" if args.sdpa else "softmax")
        ms, b = time_case(case, kernel, args.warmup, args.repeat, args.device, args.bf16)
        label = case + (" sdpa" if kernel == "sdpa" else "") + (" bf16" if args.bf16 else "")
        print(f"torch {torch.__version__} vit {label:<13} B={b}  {where}  {ms:8.1f} ms/step  "
              f"{b / (ms * 1e-3):7.0f} images/s", flush=True)


if __name__ == "__main__":
    main()
