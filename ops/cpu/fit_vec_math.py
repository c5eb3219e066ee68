#!/usr/bin/env python3
"""Regenerates the polynomial/rational coefficients of ops/cpu/vec_math.h.

Minimax fits by Lawson's iteratively reweighted least squares on Chebyshev nodes, with
relative error; references from mpmath. Needs numpy and mpmath:  python3 ops/cpu/fit_vec_math.py
"""
import math

import mpmath
import numpy as np

mpmath.mp.dps = 40


def nodes(lo, hi, n=3000):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def lawson(a, b, iters=400):
    """Minimax c for a @ c ~ b (rows already divided by the reference for relative error)."""
    w = np.ones(len(b)) / len(b)
    for _ in range(iters):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], b * sw, rcond=None)
        w = w * np.abs(a @ c - b)
        w /= w.sum()
    return c, np.max(np.abs(a @ c - b))


def show(name, coeffs, err):
    print(f"{name} (max rel err {err:.2e}):", ", ".join("%.9ef" % np.float32(v) for v in coeffs))


def ref(f, xs):
    return np.array([float(f(mpmath.mpf(v))) for v in xs])


# exp(r) = 1 + r + r^2 (c2 + c3 r + ... + c6 r^4) on |r| <= ln2/2
r = nodes(-math.log(2) / 2, math.log(2) / 2)
f = ref(mpmath.exp, r)
c, err = lawson(np.stack([r ** (2 + k) for k in range(5)], 1) / f[:, None], (f - 1 - r) / f)
show("exp c2..c6", c, err)

# log(1 + f) = f - f^2/2 + f^3 (q0 + q1 f + ... + q7 f^7) on [sqrt(1/2) - 1, sqrt(2) - 1]
x = nodes(math.sqrt(0.5) - 1, math.sqrt(2) - 1)
f = ref(mpmath.log1p, x)
c, err = lawson(np.stack([x ** (3 + k) for k in range(8)], 1) / f[:, None], (f - x + x * x / 2) / f)
show("log q0..q7", c, err)

# tanh(x) = x + x^3 (q0 + q1 x^2 + q2 x^4 + q3 x^6) on (0, 0.625]
x = nodes(1e-4, 0.625)
f = ref(mpmath.tanh, x)
c, err = lawson(np.stack([x ** 3 * (x * x) ** k for k in range(4)], 1) / f[:, None], (f - x) / f)
show("tanh q0..q3", c, err)

# erf(x) = x P(t) / Q(t), t = x^2, deg P = 4, deg Q = 6, q0 = 1, on [0, 3.92]: the linearised
# problem x P - erf Q = 0 reweighted by the previous Q (Loeb) and by Lawson weights.
x = nodes(0, 3.92, 4000)
f = ref(mpmath.erf, x)
t = x * x
q_prev, w, best = np.ones_like(x), np.ones_like(x) / len(x), None
for _ in range(300):
    a = np.concatenate([np.stack([x * t ** k for k in range(5)], 1), np.stack([-f * t ** k for k in range(1, 7)], 1)], 1)
    scale = 1 / (f * q_prev)
    sw = np.sqrt(w)
    c, *_ = np.linalg.lstsq(a * (scale * sw)[:, None], f * scale * sw, rcond=None)
    p, q = c[:5], np.concatenate([[1.0], c[5:]])
    q_prev = sum(q[k] * t ** k for k in range(7))
    e = np.abs(x * sum(p[k] * t ** k for k in range(5)) / q_prev - f) / f
    if best is None or e.max() < best[0]:
        best = (e.max(), p, q)
    w = w * np.maximum(e, 1e-30)
    w /= w.sum()
show("erf P", best[1], best[0])
show("erf Q", best[2], best[0])
