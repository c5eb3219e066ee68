#!/usr/bin/env python3
"""Writes tests/reference/fourier_reference.safetensors: outputs and autograd gradients (float64)
of PyTorch re-implementations of the three papers' RELEASED code, written the way that code
computes ("agreement with reference implementations"). tests/ops/test_fourier_reference.cpp
loads the same parameters into Harmonic and compares. Run with torch 1.13 (CPU):

    /usr/bin/python3 tests/reference/fourier_reference.py

Code followed (public repositories; where it differs from the paper is said per item):
  fh/*    nate-gillman/fourier-head fourier_head.py (Fourier_Head.forward): complex coefficients
          autocorrelated with conv1d (which gives c_k = sum_l conj(a_l) a_{l+k}: the conjugate of
          the paper's c_k, i.e. the density mirrored z -> -z), pdf 0.5 + Re sum_k (c_k/c_0)
          e^{i pi k z} at linspace bin centres, y = p / sum p, log(y + 1e-5), and the regulariser
          gamma * 2 * mean(sum_k 2 pi^2 k^2 |c_k|^2) (the paper's term times 2m).
  mle/*   fourier_head_mle.py (Fourier_PDF.evaluate_pdf / evaluate_cdf): the same series at one
          target per row; loss mean(-log(p(y) + 1e-10)).
  attn*/  minhtannguyen/FourierFormer_NeurIPS mem_transformer.py FourierAttn.forward with the
          kernel of fourier_layer.cpp as its own comment writes it in PyTorch:
          K = prod_d R sinc(R (q_d - k_d)), attn_prob = K**4, masked to 0, divided by
          (sum_keys + 1e-6); layout [len, bsz, n_head, d_head]. R scalar (shape (1), as the
          models allocate it) and per dimension (shape (d_head), the commented-out option).
  mha_*/  the same FourierAttn module up to o_net: bias-free projections, causal.
  fru*/   limbo018/FRU code/fru.py FRUCell.__call__ step loop (TensorFlow, re-written here):
          r = relu(mu W_r + b_r), phi = relu([x, r] W_phi + b_phi),
          mu = mask * mu + (1/T) cos(2 pi f t / T + 2 pi theta) phi, o = relu(mu W_o + b_o),
          t = 0..T-1, matrices stored (in, out) as TF does; mask = 0 on f = 0 (K > 1) or all 1.
  sru/    code/sru.py SimpleSRUCell: mu = alpha mu + (1 - alpha) phi.
  lstm/   code/rnn.py uses tf.contrib.rnn.BasicLSTMCell: one kernel (in + H, 4H) on [x, h], ONE
          bias (4H), gates split i, j, f, o, c = c sigmoid(f + forget_bias) + sigmoid(i) tanh(j),
          forget_bias = 1.0, h = tanh(c) sigmoid(o).
Every case backpropagates sum(output * G) with a fixed G saved as .../G.
"""
import math
import os

import torch
from torch.nn.functional import conv1d

from safetensors_io import save

torch.manual_seed(5)
f64 = torch.float64
OUT = []  # (name, tensor)


def put(name, t):
    OUT.append((name, t.detach().clone()))


def leaf(t):
    return t.clone().requires_grad_(True)


def randn(*shape, scale=1.0):
    return torch.randn(*shape, dtype=f64) * scale


# -- Fourier head (categorical) -----------------------------------------------------------------
def autocorrelate(seq):  # fourier_head.py Fourier_Head.autocorrelate, verbatim in effect
    batch, length = seq.shape
    weight = seq[:, None, :].conj().resolve_conj()
    out = conv1d(seq[None, :, :], weight, stride=(1,), padding=length - 1, groups=batch)
    return out[0, :, length - 1:]


def code_coeffs(x, w, b, n):
    params = x @ w.T + b  # nn.Linear
    a = torch.complex(params[..., 0:n + 1], params[..., n + 1:2 * (n + 1)])
    return autocorrelate(a)  # (batch, N+1)


def code_reg(c, n, gamma):
    scal = 2 * (math.pi ** 2) * (torch.arange(0, n + 1, dtype=f64) ** 2)
    return gamma * 2 * torch.mean(torch.sum(scal * torch.abs(c) ** 2, dim=-1))


def code_fourier_head(x, w, b, n, m):
    c = code_coeffs(x, w, b, n)
    cn = c[:, 1:] / c[:, 0:1].real
    edges = torch.linspace(-1, 1, m + 1, dtype=f64)
    centres = (edges[:-1] + edges[1:]) / 2
    freqs = (1.0j * torch.arange(1, n + 1, dtype=f64) * math.pi).expand((m, n))
    lik = (0.5 + (cn.unsqueeze(1) * torch.exp(centres.unsqueeze(1) * freqs).unsqueeze(0)).sum(dim=-1)).real
    cat = lik / lik.sum(dim=-1).unsqueeze(-1)
    return torch.log(cat + 1e-5), c


def fourier_head_cases():
    B, n_in, N, m, gamma = 3, 5, 4, 7, 1e-3
    x, w, b = randn(B, n_in), randn(2 * (N + 1), n_in, scale=0.5), randn(2 * (N + 1), scale=0.5)
    G = randn(B, m)
    put("fh/x", x), put("fh/weight", w), put("fh/bias", b), put("fh/G", G)
    put("fh/meta", torch.tensor([N, m, gamma], dtype=f64))
    xl, wl, bl = leaf(x), leaf(w), leaf(b)
    out, c = code_fourier_head(xl, wl, bl, N, m)
    put("fh/output", out)
    put("fh/c_re", c.real), put("fh/c_im", c.imag)
    gx, gw, gb = torch.autograd.grad((out * G).sum(), (xl, wl, bl), retain_graph=True)
    put("fh/grad_x", gx), put("fh/grad_weight", gw), put("fh/grad_bias", gb)
    reg = code_reg(c, N, gamma)
    put("fh/reg", reg)
    rw, rb = torch.autograd.grad(reg, (wl, bl))
    put("fh/reg_grad_weight", rw), put("fh/reg_grad_bias", rb)

    # MLE head: one target per row, pdf, cdf and the NLL of the code's Fourier_PDF.
    y = torch.tensor([-0.71, 0.13, 0.52], dtype=f64)
    put("mle/y", y)
    xl, wl, bl = leaf(x), leaf(w), leaf(b)
    c = code_coeffs(xl, wl, bl, N)
    cn = c[:, 1:] / c[:, 0:1].real
    freqs = (1.0j * torch.arange(1, N + 1, dtype=f64) * math.pi).expand((B, N))
    pdf = (0.5 + (cn * torch.exp(y.unsqueeze(1) * freqs)).sum(dim=1)).real
    upper = y / 2 + ((cn * torch.exp(y.view(-1, 1) * freqs)) / freqs).sum(dim=1).real
    expo = torch.arange(1, N + 1).expand((B, N))
    lower = -0.5 + (cn * ((-1) ** expo) / freqs).sum(dim=1).real
    cdf = upper - lower
    nll = torch.mean(-torch.log(pdf + 1e-10))
    put("mle/pdf", pdf), put("mle/cdf", cdf), put("mle/nll", nll)
    gx, gw, gb = torch.autograd.grad(nll, (xl, wl, bl), retain_graph=True)
    put("mle/nll_grad_x", gx), put("mle/nll_grad_weight", gw), put("mle/nll_grad_bias", gb)
    gy = torch.tensor([0.3, -1.1, 0.7], dtype=f64)
    put("mle/G", gy)
    gx, gw, gb = torch.autograd.grad((cdf * gy).sum(), (xl, wl, bl))
    put("mle/cdf_grad_x", gx), put("mle/cdf_grad_weight", gw), put("mle/cdf_grad_bias", gb)


# -- FourierFormer attention ---------------------------------------------------------------------
def code_attention(q, k, v, R, causal, eps):
    """q, k, v [len, bsz, n_head, d_head] -> [qlen, bsz, n_head, d_head] (FourierAttn.forward)."""
    qlen, klen = q.size(0), k.size(0)
    # fourier_layer.cpp, as its comment writes it in PyTorch ([qlen, klen, bsz, n_head, d_head]):
    dist = (q.unsqueeze(1) - k.unsqueeze(0)) * R / math.pi
    dist = torch.sinc(dist) * R
    score = torch.prod(dist, dim=4)  # [qlen, klen, bsz, n_head]
    prob = score ** 4
    if causal:
        mask = torch.triu(torch.ones(qlen, klen, dtype=torch.bool), diagonal=1)
        prob = prob.masked_fill(mask[:, :, None, None], 0.0)
    prob = prob / (torch.sum(prob, dim=1)[:, None, :, :] + eps)
    return torch.einsum('ijbn,jbnd->ibnd', (prob, v))


def attention_cases():
    L, Bsz, H, D = 5, 2, 2, 3
    q, k, v = randn(L, Bsz, H, D, scale=0.8), randn(L, Bsz, H, D, scale=0.8), randn(L, Bsz, H, D)
    G = randn(L, Bsz, H, D)
    put("attn/q", q), put("attn/k", k), put("attn/v", v), put("attn/G", G)
    radii = {"scalar": torch.tensor([0.8], dtype=f64), "vector": torch.tensor([0.6, 0.9, 1.2], dtype=f64)}
    for rname, R in radii.items():
        put(f"attn/R_{rname}", R)
        for causal in (False, True):
            for ename, eps in (("code", 1e-6), ("exact", 0.0)):
                name = f"attn_{rname}_{'causal' if causal else 'full'}_{ename}"
                ql, kl, vl, Rl = leaf(q), leaf(k), leaf(v), leaf(R)
                out = code_attention(ql, kl, vl, Rl, causal, eps)
                grads = torch.autograd.grad((out * G).sum(), (ql, kl, vl, Rl))
                put(f"{name}/output", out)
                for gname, g in zip(("q", "k", "v", "R"), grads):
                    put(f"{name}/grad_{gname}", g)


def mha_cases():
    """FourierAttn.forward up to o_net (before its dropout, residual and LayerNorm): bias-free
    q_net/k_net/v_net/o_net, heads split as .view(len, bsz, n_head, d_head), causal mask."""
    L, Bsz, E, H, D = 5, 2, 4, 2, 3
    h, G = randn(L, Bsz, E), randn(L, Bsz, E)
    nets = {n: randn(H * D, E, scale=0.5) for n in ("q_net", "k_net", "v_net")}
    nets["o_net"] = randn(E, H * D, scale=0.5)
    put("mha/h", h), put("mha/G", G)
    for n, w in nets.items():
        put(f"mha/{n}", w)
    for rname in ("scalar", "vector"):
        R = torch.tensor([0.8], dtype=f64) if rname == "scalar" else torch.tensor([0.6, 0.9, 1.2], dtype=f64)
        for ename, eps in (("code", 1e-6), ("exact", 0.0)):
            hl, Rl = leaf(h), leaf(R)
            wl = {n: leaf(w) for n, w in nets.items()}
            heads = {n: (hl @ wl[n].T).view(L, Bsz, H, D) for n in ("q_net", "k_net", "v_net")}
            vec = code_attention(heads["q_net"], heads["k_net"], heads["v_net"], Rl, True, eps)
            out = vec.contiguous().view(L, Bsz, H * D) @ wl["o_net"].T
            grads = torch.autograd.grad((out * G).sum(), [hl, Rl] + list(wl.values()))
            name = f"mha_{rname}_{ename}"
            put(f"{name}/output", out)
            for gname, g in zip(["h", "R"] + list(wl.keys()), grads):
                put(f"{name}/grad_{gname}", g)


# -- FRU, SRU, single-bias LSTM (TensorFlow cells re-written step by step) ----------------------
def linear_tf(x, w, b):  # fru.py/sru.py _linear: x (B, in) @ Matrix (in, out) + Bias
    return x @ w + b


def code_fru(x, p, freqs, mask, T):
    B = x.size(0)
    K, d = freqs.numel(), p["W_phi"].size(1)
    mu = torch.zeros(B, K * d, dtype=f64)
    outs = []
    for t in range(x.size(1)):
        r = torch.relu(linear_tf(mu, p["W_r"], p["b_r"]))
        phi = torch.relu(linear_tf(torch.cat([x[:, t], r], 1), p["W_phi"], p["b_phi"]))
        st = mu.reshape(-1, K, d)
        coef = 1.0 / T * torch.cos(2.0 * math.pi / T * float(t) * freqs.reshape(1, -1, 1) +
                                   2.0 * math.pi * p["theta"].reshape(1, -1, 1))
        mu = (mask.reshape(1, -1, 1) * st + coef * phi.reshape(-1, 1, d)).reshape(-1, K * d)
        outs.append(torch.relu(linear_tf(mu, p["W_o"], p["b_o"])))
    return torch.stack(outs, 1)  # (B, T, units)


def code_sru(x, p, alphas):
    B = x.size(0)
    K, d = alphas.numel(), p["W_phi"].size(1)
    mu = torch.zeros(B, K * d, dtype=f64)
    a = alphas.reshape(1, -1, 1)
    outs = []
    for t in range(x.size(1)):
        r = torch.relu(linear_tf(mu, p["W_r"], p["b_r"]))
        phi = torch.relu(linear_tf(torch.cat([x[:, t], r], 1), p["W_phi"], p["b_phi"]))
        mu = (a * mu.reshape(-1, K, d) + (1 - a) * phi.reshape(-1, 1, d)).reshape(-1, K * d)
        outs.append(torch.relu(linear_tf(mu, p["W_o"], p["b_o"])))
    return torch.stack(outs, 1)


def code_basic_lstm(x, kernel, bias, forget_bias=1.0):
    B, H = x.size(0), kernel.size(1) // 4
    h = torch.zeros(B, H, dtype=f64)
    c = torch.zeros(B, H, dtype=f64)
    outs = []
    for t in range(x.size(1)):
        gates = torch.cat([x[:, t], h], 1) @ kernel + bias
        i, j, f, o = torch.split(gates, H, dim=1)
        c = c * torch.sigmoid(f + forget_bias) + torch.sigmoid(i) * torch.tanh(j)
        h = torch.tanh(c) * torch.sigmoid(o)
        outs.append(h)
    return torch.stack(outs, 1), c


def run_case(prefix, fn, inputs):
    """Saves inputs, output and the gradients of sum(output * G) w.r.t. every input."""
    leaves = {k: leaf(v) for k, v in inputs.items()}
    out = fn(leaves)
    G = randn(*out.shape)
    grads = torch.autograd.grad((out * G).sum(), list(leaves.values()))
    put(f"{prefix}/G", G), put(f"{prefix}/output", out)
    for (k, v), g in zip(inputs.items(), grads):
        put(f"{prefix}/{k}", v), put(f"{prefix}/grad_{k}", g)


def recurrent_cases():
    B, T, n_in, R, units = 2, 6, 3, 4, 3
    # FRU: K = 3 frequencies [0, 0.25, f_max = 2] (Harmonic's fru_frequencies(3, 2)), d = 2.
    K, d = 3, 2
    freqs = torch.tensor([0.0, 0.25, 2.0], dtype=f64)
    base = {"x": randn(B, T, n_in), "theta": randn(K, scale=0.1), "W_r": randn(K * d, R, scale=0.5),
            "b_r": randn(R, scale=0.2), "W_phi": randn(n_in + R, d, scale=0.5), "b_phi": randn(d, scale=0.2) + 0.3,
            "W_o": randn(K * d, units, scale=2.0), "b_o": torch.rand(units, dtype=f64) * 0.2 + 0.1}
    base["W_o"][:, -1] = base["W_o"][:, -1].abs()  # this seed's last column was all negative: a dead unit
    put("fru/freqs", freqs)
    for mname, mask in (("mask", torch.tensor([0.0, 1.0, 1.0], dtype=f64)), ("nomask", torch.ones(K, dtype=f64))):
        run_case(f"fru_{mname}", lambda p: code_fru(p["x"], p, freqs, mask, float(T)), base)
    # SRU: alphas [0, 0.5, 0.9], phi size 2.
    alphas = torch.tensor([0.0, 0.5, 0.9], dtype=f64)
    put("sru/alphas", alphas)
    sru = dict(base)
    del sru["theta"]
    sru["W_o"] = randn(K * d, units)
    run_case("sru", lambda p: code_sru(p["x"], p, alphas), sru)
    # BasicLSTMCell, H = 4.
    H = 4
    lstm = {"x": randn(B, T, n_in), "kernel": randn(n_in + H, 4 * H, scale=0.5), "bias": randn(4 * H, scale=0.3)}
    run_case("lstm", lambda p: code_basic_lstm(p["x"], p["kernel"], p["bias"])[0], lstm)


def main():
    fourier_head_cases()
    attention_cases()
    recurrent_cases()
    mha_cases()
    names = [n for n, _ in OUT]
    assert len(names) == len(set(names)), "duplicate names"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fourier_reference.safetensors")
    save(path, OUT, {"producer": "fourier_reference.py", "torch": torch.__version__})
    print(f"wrote {len(OUT)} tensors, {os.path.getsize(path)} bytes to {path}")


if __name__ == "__main__":
    main()
