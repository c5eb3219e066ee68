#!/usr/bin/env python3
"""One spectrogram-transformer training step in eager PyTorch, to compare with `harmonic bench
--audio` (tools/bench/audio_case.cpp, models/spectrogram_transformer.h): a token per frame
(Linear over the bands), learned positions, pre-norm blocks (exact GELU MLP;
tools/bench/torch/encoder_blocks_torch.py), final LayerNorm, the mean over tokens, and a linear
or a Fourier head (Gillman et al.'s, 2 frequencies, no regulariser) over 32 tempo classes. One
step = forward, cross-entropy, zero_grad, backward, AdamW step.
  linear, fourier          the audio-bpm task's model: 126 frames x 16 bands, dim 64, 2 layers,
                           4 heads, MLP 128, batch 32
  ast_linear, ast_fourier  the Audio Spectrogram Transformer's size: 1024 frames x 128 bands,
                           dim 768, 12 layers, 12 heads, MLP 3072, batch 8
--sdpa runs attention through F.scaled_dot_product_attention. On cuda TF32 stays off unless
--bf16 (autocast). Prints ms/step and clips/s (time_ms of tools/bench/torch/bench_torch.py: the
method of tools/bench/timing.h).
  OMP_NUM_THREADS=2 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_audio_torch.py --threads 2
  python3 tools/bench/torch/bench_audio_torch.py --device cuda --case ast_linear --sdpa   # on a GPU machine
"""
import argparse
import math
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_torch  # noqa: E402
from encoder_blocks_torch import Block, training_step_ms  # noqa: E402
from peer_timing import add_timing_args, set_up_device  # noqa: E402

CLASSES, FREQUENCIES = 32, 2
# (frames, bands, dim, depth, heads, mlp, batch)
SIZES = {"task": (126, 16, 64, 2, 4, 128, 32), "ast": (1024, 128, 768, 12, 12, 3072, 8)}


class FourierHead(nn.Module):
    """Gillman et al.'s head (Algorithm 1) in its real form, without the regulariser."""

    def __init__(self, dim, n_freq, bins):
        super().__init__()
        self.n = n_freq
        self.linear = nn.Linear(dim, 2 * (n_freq + 1))
        centres = -1 + (2 * torch.arange(bins) + 1) / bins
        angle = math.pi * torch.arange(n_freq + 1).unsqueeze(1) * centres  # (N+1, m)
        self.register_buffer("cos", torch.cos(angle))
        self.register_buffer("sin", torch.sin(angle))

    def forward(self, x):
        v = self.linear(x)
        alpha, beta = v[..., : self.n + 1], v[..., self.n + 1 :]
        re = alpha @ self.cos - beta @ self.sin
        im = alpha @ self.sin + beta @ self.cos
        p = re * re + im * im
        return torch.log(p / p.sum(-1, keepdim=True) + 1e-5)


class SpectrogramTransformer(nn.Module):
    def __init__(self, size, head, kernel):
        super().__init__()
        frames, bands, e, depth, heads, mlp, _ = SIZES[size]
        self.proj = nn.Linear(bands, e)
        self.pos = nn.Parameter(torch.zeros(1, frames, e))
        self.blocks = nn.ModuleList(Block(e, heads, mlp, kernel, 1e-5) for _ in range(depth))
        self.norm = nn.LayerNorm(e)
        self.head = FourierHead(e, FREQUENCIES, CLASSES) if head == "fourier" else nn.Linear(e, CLASSES)

    def forward(self, clips):
        x = self.proj(clips) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x).mean(1))


def time_case(case, warmup, repeat, device, sdpa, bf16):
    torch.manual_seed(0)
    size = "ast" if case.startswith("ast_") else "task"
    frames, bands, _, _, _, _, b = SIZES[size]
    model = SpectrogramTransformer(size, case.split("_")[-1], "sdpa" if sdpa else "softmax").to(device)
    clips = torch.randn(b, frames, bands, device=device)
    labels = torch.randint(0, CLASSES, (b,), device=device)
    return training_step_ms(model, clips, labels, 3e-3, 0.01, repeat, warmup, bf16), b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_timing_args(ap, repeat=3)
    ap.add_argument("--case", action="append", choices=["linear", "fourier", "ast_linear", "ast_fourier"])
    ap.add_argument("--sdpa", action="store_true", help="attention through F.scaled_dot_product_attention")
    ap.add_argument("--bf16", action="store_true", help="cuda: bf16 autocast")
    args = ap.parse_args()
    bench_torch.DEVICE = args.device  # time_ms synchronises the device around its timed runs
    where = set_up_device(args.device, args.threads)
    for case in args.case or ["linear", "fourier"]:
        ms, b = time_case(case, args.warmup, args.repeat, args.device, args.sdpa, args.bf16)
        label = case + (" sdpa" if args.sdpa else "") + (" bf16" if args.bf16 else "")
        print(f"torch {torch.__version__} audio {label:<16} B={b}  {where}  {ms:8.1f} ms/step  "
              f"{b / (ms * 1e-3):7.0f} clips/s", flush=True)


if __name__ == "__main__":
    main()
