#!/usr/bin/env python3
"""Writes tests/reference/ops_reference.safetensors: PyTorch forward and backward results for
representative ops of every family, in the layout `harmonic op` reads and writes.

For each case NAME the file holds NAME/<input> (the op's inputs by their op-table names),
NAME/grad_output, NAME/output and NAME/grad_<input> for every float differentiable input, and
the metadata entry "case:NAME" = {"op": ..., "attrs": {...}} (attribute names of the op table,
ops/registry/*.cpp). tests/ops/test_op_runner.cpp runs each case through the op table and
compares. Needs torch (python3-torch 1.13 is /usr/bin/python3 on the dev machines):

    /usr/bin/python3 tests/reference/make_op_references.py
"""
import json
import os

import torch
import torch.nn.functional as F

from safetensors_io import save

torch.manual_seed(0)
f64, f32 = torch.float64, torch.float32
CASES = []  # (name, op, attrs, {input: tensor}, fn(inputs) -> output)


def case(name, op, attrs, inputs, fn):
    CASES.append((name, op, attrs, inputs, fn))


def randn(*shape, dtype=f64):
    return torch.randn(*shape, dtype=dtype)


def pos(*shape, dtype=f64):
    return torch.rand(*shape, dtype=dtype) + 0.5


def idx(high, *shape):
    return torch.randint(0, high, shape)


# -- elementwise ------------------------------------------------------------------------------
case("add_broadcast", "add", {}, {"a": randn(3, 4, 5), "b": randn(4, 1)}, lambda t: t["a"] + t["b"])
case("pow_tensor", "pow", {}, {"a": pos(2, 3), "b": randn(3)}, lambda t: torch.pow(t["a"], t["b"]))
case("gelu_erf", "gelu", {}, {"x": randn(4, 5) * 2}, lambda t: F.gelu(t["x"]))
case("gelu_tanh_f32", "gelu", {"approximate": "tanh"}, {"x": randn(4, 5, dtype=f32) * 2},
     lambda t: F.gelu(t["x"], approximate="tanh"))
case("softplus_beta", "softplus", {"beta": 2.0, "threshold": 5.0}, {"x": randn(3, 6) * 3},
     lambda t: F.softplus(t["x"], beta=2.0, threshold=5.0))
case("clamp", "clamp", {"min": -0.5, "max": 0.7}, {"x": randn(3, 5)}, lambda t: torch.clamp(t["x"], -0.5, 0.7))
case("where_broadcast", "where", {}, {"cond": torch.rand(3, 4) < 0.5, "a": randn(3, 4), "b": randn(4)},
     lambda t: torch.where(t["cond"], t["a"], t["b"]))

# -- reductions -------------------------------------------------------------------------------
case("sum_dims_keepdim", "sum", {"dim": [0, 2], "keepdim": True}, {"x": randn(2, 3, 4)},
     lambda t: t["x"].sum(dim=(0, 2), keepdim=True))
case("var_population", "var", {"dim": 1, "correction": 0}, {"x": randn(3, 5)},
     lambda t: torch.var(t["x"], dim=1, unbiased=False))
case("logsumexp", "logsumexp", {"dim": 1}, {"x": randn(3, 5) * 3}, lambda t: torch.logsumexp(t["x"], dim=1))
case("norm_p3", "norm", {"p": 3.0, "dim": 1}, {"x": randn(3, 4)}, lambda t: torch.norm(t["x"], p=3, dim=1))
case("max_values", "max", {"dim": 1, "keepdim": True}, {"x": randn(3, 5)},
     lambda t: torch.max(t["x"], dim=1, keepdim=True).values)
case("cumsum", "cumsum", {"dim": 0}, {"x": randn(4, 3)}, lambda t: torch.cumsum(t["x"], dim=0))

# -- shape ------------------------------------------------------------------------------------
case("permute", "permute", {"dims": [2, 0, 1]}, {"x": randn(2, 3, 4)}, lambda t: t["x"].permute(2, 0, 1))
case("cat_dim0", "cat", {"dim": 0}, {"xs0": randn(2, 3), "xs1": randn(1, 3), "xs2": randn(3, 3)},
     lambda t: torch.cat([t["xs0"], t["xs1"], t["xs2"]], dim=0))
case("split_sizes", "split", {"split_size": [1, 3], "dim": 1, "index": 1}, {"x": randn(2, 4)},
     lambda t: torch.split(t["x"], [1, 3], dim=1)[1])
case("pad_value", "pad", {"pads": [1, 2, 0, 1], "value": 0.5}, {"x": randn(2, 3)},
     lambda t: F.pad(t["x"], [1, 2, 0, 1], value=0.5))

# -- indexing ---------------------------------------------------------------------------------
case("gather_dim1", "gather", {"dim": 1}, {"x": randn(3, 4), "index": idx(4, 3, 2)},
     lambda t: torch.gather(t["x"], 1, t["index"]))
case("scatter_add_dim0", "scatter_add", {"dim": 0}, {"x": randn(3, 4), "index": idx(3, 2, 4), "src": randn(2, 4)},
     lambda t: torch.scatter_add(t["x"], 0, t["index"], t["src"]))
case("index_add_dup", "index_add", {"dim": 0},
     {"x": randn(4, 3), "index": torch.tensor([0, 2, 0]), "src": randn(3, 3)},
     lambda t: torch.index_add(t["x"], 0, t["index"], t["src"]))

# -- linalg -----------------------------------------------------------------------------------
case("matmul_batched", "matmul", {}, {"a": randn(2, 3, 4), "b": randn(4, 5)}, lambda t: t["a"] @ t["b"])
case("linear_bias_f32", "linear", {}, {"x": randn(3, 4, dtype=f32), "w": randn(5, 4, dtype=f32), "b": randn(5, dtype=f32)},
     lambda t: F.linear(t["x"], t["w"], t["b"]))

# -- nn functional ----------------------------------------------------------------------------
case("softmax_dim0_f32", "softmax", {"dim": 0}, {"x": randn(4, 6, dtype=f32)}, lambda t: F.softmax(t["x"], dim=0))
case("log_softmax", "log_softmax", {"dim": -1}, {"x": randn(3, 5) * 2}, lambda t: F.log_softmax(t["x"], dim=-1))
case("cross_entropy_smooth_ignore", "cross_entropy", {"label_smoothing": 0.1, "ignore_index": -100},
     {"x": randn(4, 5), "target": torch.tensor([1, -100, 4, 0])},
     lambda t: F.cross_entropy(t["x"], t["target"], ignore_index=-100, label_smoothing=0.1))
case("cross_entropy_3d_none", "cross_entropy", {"reduction": "none"}, {"x": randn(2, 4, 3), "target": idx(4, 2, 3)},
     lambda t: F.cross_entropy(t["x"], t["target"], reduction="none"))
case("nll_loss_sum", "nll_loss", {"reduction": "sum"}, {"x": randn(4, 3), "target": idx(3, 4)},
     lambda t: F.nll_loss(t["x"], t["target"], reduction="sum"))
case("mse_loss", "mse_loss", {}, {"x": randn(3, 4), "target": randn(3, 4)}, lambda t: F.mse_loss(t["x"], t["target"]))
case("layer_norm_affine", "layer_norm", {"normalized_shape": [4, 5]},
     {"x": randn(3, 4, 5), "w": randn(4, 5), "b": randn(4, 5)},
     lambda t: F.layer_norm(t["x"], [4, 5], t["w"], t["b"], eps=1e-5))
case("rms_norm", "rms_norm", {"eps": 1e-6}, {"x": randn(3, 6), "w": randn(6)},  # torch 1.13 has no rms_norm
     lambda t: t["x"] * torch.rsqrt(t["x"].pow(2).mean(-1, keepdim=True) + 1e-6) * t["w"])
case("embedding_padding", "embedding", {"padding_idx": 1},
     {"w": randn(6, 3), "indices": torch.tensor([[0, 1, 5], [1, 2, 0]])},
     lambda t: F.embedding(t["indices"], t["w"], padding_idx=1))

def main():
    tensors, metadata = [], {"producer": "make_op_references.py", "torch": torch.__version__}
    for name, op, attrs, inputs, fn in CASES:
        leaves = {k: (v.clone().requires_grad_(True) if v.is_floating_point() else v) for k, v in inputs.items()}
        out = fn(leaves)
        grad_output = torch.randn(out.shape, dtype=out.dtype)
        out.backward(grad_output)
        metadata["case:" + name] = json.dumps({"op": op, "attrs": attrs})
        tensors += [(f"{name}/{k}", v) for k, v in inputs.items()]
        tensors += [(f"{name}/grad_output", grad_output), (f"{name}/output", out)]
        tensors += [(f"{name}/grad_{k}", v.grad) for k, v in leaves.items() if v.is_floating_point()]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_reference.safetensors")
    save(path, tensors, metadata)
    print(f"wrote {len(CASES)} cases, {len(tensors)} tensors, {os.path.getsize(path)} bytes to {path}")


if __name__ == "__main__":
    main()
