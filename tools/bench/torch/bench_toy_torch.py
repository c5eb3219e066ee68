#!/usr/bin/env python3
"""One training step of the Fourier head toy study's model in eager PyTorch, timed per head, to
compare with `harmonic bench --toy` (models/fourier_toy.h). The model: MLP 2 -> 64 -> 32 -> head
with ReLU, batch 32, 50 bins; inputs are bin indices as floats, targets bin indices
(cross-entropy); the MLE head takes raw inputs and raw targets in (-1, 1). One step =
loss, zero_grad, backward, Adam(lr 1e-3) step; the MLE head also steps a cosine lr schedule and
clips the gradient norm to 1, as models/fourier_toy.cpp's trainer does.

Heads, written the way the authors' toy code computes them (nate-gillman/fourier-head):
  linear       Linear(32, 50) logits
  gmm          gmm_head.py: means tanh(Linear(32, K=2)), std softplus(s) (s = softplus^-1(2/m)),
               equal-weight mixture density at the bin centres, log(pmf + 1e-5); the pmf is
               normalised over the bins first, as Harmonic's nn::GMMHead does
  fourier      Linear(32, 2(N+1)) / 100 init, N = 12, log(pmf + 1e-5), two forms:
                 complex: fourier_head.py's route (complex coefficients, autocorrelation by
                          conv1d, 0.5 + Re sum_k c_k/c_0 e^{i pi k b_j}, normalise)
                 real:    [R | I] = coeffs @ cos/sin table, q = R^2 + I^2, normalise
               plus gamma = 1e-6: the regulariser gamma * 2 mean(sum_k 2 pi^2 k^2 |c_k|^2) of the
               autocorrelation (complex: conv1d as in the code; real: diagonal sums of the
               real outer products, one matmul)
  fourier-mle  fourier_head_mle.py: the same series at one target per row,
               mean(-log(p(y) + 1e-10)), complex or real form (|A(y)|^2 / (2 sum |a_l|^2))
Prints us/step per head (median over timed runs); --form picks the Fourier forms to time.
Usage (the peer's python: ~/.cache/harmonic/torch-venv/bin/python from .ci/install-deps --with-torch):
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ~/.cache/harmonic/torch-venv/bin/python tools/bench/torch/bench_toy_torch.py --threads 1
"""
import argparse
import math
import time

import torch
import torch.nn.functional as F
from torch import nn

BINS, BATCH, FREQS = 50, 32, 12


def bin_centres(m):
    return -1 + (2 * torch.arange(m, dtype=torch.float32) + 1) / m


def autocorrelate(a):
    """c_k = sum_l conj(a_l) a_{l+k}, k = 0..N, by grouped conv1d (the authors' code)."""
    batch, length = a.shape
    weight = a[:, None, :].conj().resolve_conj()
    return F.conv1d(a[None, :, :], weight, padding=length - 1, groups=batch)[0, :, length - 1:]


def regulariser(c_abs2, gamma):
    """gamma * 2 mean(sum_k 2 pi^2 k^2 |c_k|^2) from |c_k|^2 (B, N+1)."""
    k2 = 2 * math.pi ** 2 * torch.arange(c_abs2.shape[-1], dtype=torch.float32) ** 2
    return gamma * 2 * torch.mean(torch.sum(k2 * c_abs2, dim=-1))


class FourierHead(nn.Module):
    def __init__(self, n_in, bins, n, gamma, form, mle=False):
        super().__init__()
        self.fc = nn.Linear(n_in, 2 * (n + 1))
        with torch.no_grad():
            self.fc.weight /= 100
            self.fc.bias /= 100
        self.n, self.gamma, self.form, self.mle = n, gamma, form, mle
        k = torch.arange(n + 1, dtype=torch.float64)
        if form == "complex":
            self.register_buffer("freqs", (1j * math.pi * k[1:]).to(torch.complex64))  # (N)
            self.register_buffer("bin_exp", torch.exp(bin_centres(bins).double()[:, None] * (1j * math.pi * k[1:]))
                                 .to(torch.complex64))  # (m, N)
        else:
            ang = math.pi * k[:, None] * bin_centres(bins).double()[None, :]  # (N+1, m)
            c, s = torch.cos(ang), torch.sin(ang)
            self.register_buffer("table", torch.cat([torch.cat([c, -s], 1), torch.cat([s, c], 1)], 0).float())
            self.register_buffer("k", k.float())
            idx = torch.arange(n + 1)
            self.register_buffer("diag_sum", ((idx[None, :] - idx[:, None])[..., None] == idx).reshape(-1, n + 1).float())

    def real_autocorrelation_abs2(self, p):
        """|c_k|^2 without complex tensors: the k-th diagonal sums of the outer products
        conj(a) a^T (real and imaginary parts), as one matmul against a 0/1 diagonal selector."""
        ar, ai = p[:, : self.n + 1], p[:, self.n + 1:]
        re = ar[:, :, None] * ar[:, None, :] + ai[:, :, None] * ai[:, None, :]  # (B, N+1, N+1)
        im = ar[:, :, None] * ai[:, None, :] - ai[:, :, None] * ar[:, None, :]
        b = p.shape[0]
        c_re, c_im = re.reshape(b, -1) @ self.diag_sum, im.reshape(b, -1) @ self.diag_sum
        return c_re ** 2 + c_im ** 2

    def complex_coeffs(self, x):
        p = self.fc(x)
        return torch.complex(p[:, : self.n + 1], p[:, self.n + 1:]), p

    def log_pmf(self, x):  # (B, in) -> (B, bins)
        a, p = self.complex_coeffs(x)
        if self.form == "complex":
            c = autocorrelate(a)
            lik = 0.5 + ((c[:, 1:] / c[:, :1].real) @ self.bin_exp.T).real
            c_abs2 = torch.abs(c) ** 2 if self.gamma > 0 else None
        else:
            z = p @ self.table
            m = z.shape[-1] // 2
            lik = z[:, :m] ** 2 + z[:, m:] ** 2
            c_abs2 = self.real_autocorrelation_abs2(p) if self.gamma > 0 else None
        y = lik / lik.sum(-1, keepdim=True)
        out = torch.log(y + 1e-5)
        return out, regulariser(c_abs2, self.gamma) if self.gamma > 0 else None

    def nll(self, x, y):  # x (B, in), y (B) in (-1, 1)
        a, p = self.complex_coeffs(x)
        if self.form == "complex":
            c = autocorrelate(a)
            pdf = (0.5 + (c[:, 1:] / c[:, :1].real * torch.exp(y[:, None] * self.freqs)).sum(-1)).real
        else:
            ang = math.pi * y[:, None] * self.k  # (B, N+1)
            cos, sin = torch.cos(ang), torch.sin(ang)
            ar, ai = p[:, : self.n + 1], p[:, self.n + 1:]
            re = (ar * cos - ai * sin).sum(-1)
            im = (ar * sin + ai * cos).sum(-1)
            pdf = (re ** 2 + im ** 2) / (2 * (p ** 2).sum(-1))
        return torch.mean(-torch.log(pdf + 1e-10))


class GMMHead(nn.Module):
    def __init__(self, n_in, bins, k):
        super().__init__()
        self.fc = nn.Linear(n_in, k)
        self.s = nn.Parameter(torch.full((k,), math.log(math.exp(2.0 / bins) - 1)))
        self.register_buffer("centres", bin_centres(bins))

    def log_pmf(self, x):
        means = torch.tanh(self.fc(x)).unsqueeze(-1)  # (B, K, 1)
        sd = F.softplus(self.s).view(1, -1, 1)
        dens = torch.exp(-((self.centres.view(1, 1, -1) - means) ** 2) / (2 * sd ** 2)) / (sd * math.sqrt(2 * math.pi))
        mix = dens.mean(1)
        return torch.log(mix / mix.sum(-1, keepdim=True) + 1e-5), None


class ToyModel(nn.Module):
    def __init__(self, head, form):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(2, 64), nn.Linear(64, 32)
        self.kind = head
        if head == "linear":
            self.head = nn.Linear(32, BINS)
        elif head == "gmm":
            self.head = GMMHead(32, BINS, 2)
        elif head == "fourier":
            self.head = FourierHead(32, BINS, FREQS, 0.0, form)
        elif head == "fourier_reg":
            self.head = FourierHead(32, BINS, FREQS, 1e-6, form)
        else:
            self.head = FourierHead(32, BINS, FREQS, 0.0, form, mle=True)

    def loss(self, x, t):
        h = F.relu(self.fc2(F.relu(self.fc1(x))))
        if self.kind == "linear":
            return F.cross_entropy(self.head(h), t)
        if self.kind == "fourier_mle":
            return self.head.nll(h, t)
        logits, reg = self.head.log_pmf(h)
        ce = F.cross_entropy(logits, t)
        return ce if reg is None else ce + reg


def time_us(step, reps, warmup):
    """Median us per step over reps runs of `inner` steps (inner: one run lasts >= 1 ms)."""
    for _ in range(warmup):
        step()
    t0 = time.perf_counter()
    step()
    single = max(time.perf_counter() - t0, 1e-7)
    inner = min(10000, max(1, math.ceil(1e-3 / single)))
    runs = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            step()
        runs.append((time.perf_counter() - t0) / inner * 1e6)
    runs.sort()
    return runs[len(runs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--form", choices=["complex", "real", "both"], default="both")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    # Bin indices as floats (x, y) and z's bin; raw values in (-1, 1) for the MLE head.
    bin_x = torch.randint(0, BINS, (BATCH, 2)).float()
    bin_t = torch.randint(0, BINS, (BATCH,))
    raw_x = torch.rand(BATCH, 2) * 1.6 - 0.8
    raw_t = torch.rand(BATCH) * 1.8 - 0.9
    forms = ["complex", "real"] if args.form == "both" else [args.form]
    labels = {"linear": "linear", "gmm": "gmm K=2", "fourier": "fourier N=12 gamma=0",
              "fourier_reg": "fourier N=12 gamma=1e-06", "fourier_mle": "fourier-mle N=12 gamma=0"}
    for head in ["linear", "gmm", "fourier", "fourier_reg", "fourier_mle"]:
        for form in forms if head.startswith("fourier") else ["-"]:
            model = ToyModel(head, form)
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            mle = head == "fourier_mle"
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=500 * 125, eta_min=1e-6) if mle else None
            x, t = (raw_x, raw_t) if mle else (bin_x, bin_t)

            def step():
                loss = model.loss(x, t)
                opt.zero_grad()
                loss.backward()
                if mle:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                if mle:
                    sched.step()

            us = time_us(step, args.reps, args.warmup)
            print(f"torch {head:<12} {labels[head]:<26} form={form:<8} threads={args.threads}  train step {us:9.1f} us",
                  flush=True)


if __name__ == "__main__":
    main()
