#!/usr/bin/env python3
"""Writes tests/reference/fft_reference.safetensors: PyTorch 1.13 results for the FFT op family
(ops/fft.h), read by tests/ops/test_fft.cpp.

Complex results are stored as torch.view_as_real (a trailing dim of 2, Harmonic's layout).
Each case NAME holds NAME/x (float64 input), NAME/output, NAME/grad_output (an upstream
gradient) and NAME/grad_x (the gradient of sum(output * grad_output) with respect to x), plus
NAME/window when the case has one; the metadata entry "case:NAME" gives the op and its
arguments as JSON. Needs torch (python3-torch 1.13 is /usr/bin/python3 on the dev machines):

    cd tests/reference && /usr/bin/python3 make_fft_reference.py
"""
import json
import os

import torch

from safetensors_io import save

torch.manual_seed(0)
f64 = torch.float64
tensors, metadata = [], {}


def case(name, op, args, x, fn, window=None):
    x = x.clone().requires_grad_(True)
    out = fn(x)
    grad_output = torch.randn(out.shape, dtype=f64)
    (grad_x,) = torch.autograd.grad(out, x, grad_output)
    tensors.extend([(f"{name}/x", x), (f"{name}/output", out), (f"{name}/grad_output", grad_output),
                    (f"{name}/grad_x", grad_x)])
    if window is not None:
        tensors.append((f"{name}/window", window))
    metadata[f"case:{name}"] = json.dumps({"op": op, **args})


def stft(x, n_fft, hop, window, center):
    s = torch.stft(x, n_fft, hop_length=hop, win_length=window.numel(), window=window, center=center, pad_mode="reflect", normalized=False,
                   onesided=True, return_complex=True)
    return torch.view_as_real(s)  # (..., bins, frames, 2)


def log_spectrogram(x, n_fft, hop, window, center, eps):
    s = torch.stft(x, n_fft, hop_length=hop, window=window, center=center, pad_mode="reflect", normalized=False,
                   onesided=True, return_complex=True)
    return torch.log(s.abs() ** 2 + eps)


# -- rfft / irfft: even, odd, prime and Bluestein lengths, norms ---------------------------------
for n, norm in [(12, "backward"), (7, "ortho"), (97, "forward"), (1009, "backward")]:
    case(f"rfft_{n}_{norm}", "rfft", {"n": n, "norm": norm}, torch.randn(2 if n < 100 else 1, n, dtype=f64),
         lambda x, norm=norm: torch.view_as_real(torch.fft.rfft(x, norm=norm)))
for n, m, norm in [(12, 7, "backward"), (9, 5, "ortho"), (10, 4, "forward"), (6, 8, "backward")]:
    case(f"irfft_{n}_from_{m}_{norm}", "irfft", {"n": n, "norm": norm}, torch.randn(2, m, 2, dtype=f64),
         lambda x, n=n, norm=norm: torch.fft.irfft(torch.view_as_complex(x), n=n, norm=norm))

# -- stft: Hann window (periodic), centre/reflect padding, a short window, no centring ------------
sig = torch.randn(2, 400, dtype=f64)
hann = torch.hann_window(128, periodic=True, dtype=f64)
case("stft_hann_center", "stft", {"n_fft": 128, "hop": 32, "center": True}, sig,
     lambda x: stft(x, 128, 32, hann, True), hann)
short = torch.hann_window(100, periodic=True, dtype=f64)
case("stft_win100_hop25", "stft", {"n_fft": 128, "hop": 25, "center": True}, sig[:, :201],
     lambda x: stft(x, 128, 25, short, True), short)
case("stft_no_center_odd", "stft", {"n_fft": 45, "hop": 20, "center": False}, sig[:1, :200],
     lambda x: stft(x, 45, 20, torch.hann_window(45, dtype=f64), False), torch.hann_window(45, dtype=f64))
case("log_spectrogram", "log_spectrogram", {"n_fft": 64, "hop": 16, "center": True, "eps": 1e-10}, sig[:, :160],
     lambda x: log_spectrogram(x, 64, 16, torch.hann_window(64, dtype=f64), True, 1e-10),
     torch.hann_window(64, dtype=f64))
tensors.append(("hann_periodic_10", torch.hann_window(10, periodic=True, dtype=f64)))
tensors.append(("hann_symmetric_10", torch.hann_window(10, periodic=False, dtype=f64)))

metadata["torch"] = torch.__version__
here = os.path.dirname(os.path.abspath(__file__))
save(os.path.join(here, "fft_reference.safetensors"), tensors, metadata)
print(f"wrote {len(tensors)} tensors, {sum(t.numel() for _, t in tensors)} values")
