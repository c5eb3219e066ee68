// Shape ops that move data (cat, flip, pad, tril/triu) and the splitting family (views).
// cat and pad write through slices of the output with copy_kernel, so they need no kernel
// of their own; flip and the triangular masks use the slots in ops/shape_copies_kernels.h.
#include <algorithm>

#include "harmonic/autograd/node.h"
#include "harmonic/core/checked_math.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/shape_common.h"
#include "harmonic/ops/shape_copies_kernels.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {

using autograd::NeedsGrad;
using Grads = std::vector<Tensor>;

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  check(!xs.empty(), "cat", "expected a non-empty list of tensors");
  for (size_t i = 0; i < xs.size(); ++i) check(xs[i].defined(), "cat", "tensor {} is undefined", i);
  const Tensor& first = xs[0];
  HM_CHECK(first.dim() > 0, "cat", "tensor 0 is 0-d ({}); unsqueeze scalars before concatenating", first.desc());
  const int64_t d = normalize_dim(dim, first.dim(), "cat");
  Shape shape = first.shape();
  shape[d] = 0;
  // bfloat16 with float32 gives float32, as in a binary op: the copies widen as they write.
  DType dtype = first.dtype();
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    HM_CHECK(x.dtype() == first.dtype() || mixes_bf16_and_float32(x.dtype(), first.dtype()), "cat",
             "tensor {} is {} but tensor 0 is {} (convert with .to(dtype))", i, x.desc(), first.desc());
    if (x.dtype() != dtype) dtype = DType::Float32;
    HM_CHECK(x.device() == first.device(), "cat", "tensor {} is on {} but tensor 0 is on {}", i, x.device().str(),
             first.device().str());
    bool same = x.dim() == first.dim();
    for (int64_t k = 0; same && k < x.dim(); ++k) same = k == d || x.shape()[k] == first.shape()[k];
    HM_CHECK(same, "cat", "sizes must match except in dim {}: tensor 0 has shape {} but tensor {} has shape {}", d,
             str(first.shape()), i, str(x.shape()));
    shape[d] += x.shape()[d];
  }
  Tensor out = Tensor::empty(shape, dtype, first.device());
  std::vector<int64_t> offsets;
  int64_t offset = 0;
  for (const Tensor& x : xs) {
    const int64_t n = x.shape()[d];
    if (n > 0 && x.numel() > 0) copy_kernel(x.device(), x, detail::slice_alias(out, d, offset, n));
    offsets.push_back(offset);
    offset += n;
  }
  Shape sizes;
  for (const Tensor& x : xs) sizes.push_back(x.shape()[d]);
  return autograd::record("cat", out, xs, [d, offsets, sizes](const Tensor& g, const NeedsGrad& n) {
    Grads grads(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i)
      if (n[i]) grads[i] = narrow(g, d, offsets[i], sizes[i]);
    return grads;
  });
}

Tensor stack(const std::vector<Tensor>& xs, int64_t dim) {
  check(!xs.empty(), "stack", "expected a non-empty list of tensors");
  for (size_t i = 0; i < xs.size(); ++i) {
    check(xs[i].defined(), "stack", "tensor {} is undefined", i);
    HM_CHECK(xs[i].shape() == xs[0].shape(), "stack",
             "all tensors must have the same shape: tensor 0 has {} but tensor {} has {}", str(xs[0].shape()), i,
             str(xs[i].shape()));
    HM_CHECK((xs[i].dtype() == xs[0].dtype() || mixes_bf16_and_float32(xs[i].dtype(), xs[0].dtype())) &&
                 xs[i].device() == xs[0].device(),
             "stack",
             "all tensors must share dtype and device: tensor 0 is {} but tensor {} is {} (convert with .to(dtype))",
             xs[0].desc(), i, xs[i].desc());
  }
  const int64_t d = normalize_dim(dim, xs[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (const Tensor& x : xs) parts.push_back(unsqueeze(x, d));
  return cat(parts, d);
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  check(x.defined(), "split", "undefined tensor");
  check(x.dim() > 0, "split", "cannot split a 0-d tensor");
  const int64_t d = normalize_dim(dim, x.dim(), "split");
  const int64_t size = x.shape()[d];
  HM_CHECK(split_size > 0 || (split_size == 0 && size == 0), "split",
           "split_size must be positive, got {} for dim {} of {}", split_size, d, str(x.shape()));
  std::vector<Tensor> out;
  if (size == 0) return {narrow(x, d, 0, 0)};
  for (int64_t start = 0; start < size; start += split_size)
    out.push_back(narrow(x, d, start, std::min(split_size, size - start)));
  return out;
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  check(x.defined(), "split", "undefined tensor");
  check(x.dim() > 0, "split", "cannot split a 0-d tensor");
  const int64_t d = normalize_dim(dim, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    HM_CHECK(s >= 0, "split", "negative size {} in split sizes {}", s, str(sizes));
    total += s;
  }
  HM_CHECK(total == x.shape()[d], "split", "split sizes {} sum to {} but dim {} of {} has size {}", str(sizes), total,
           d, str(x.shape()), x.shape()[d]);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(x, d, start, s));
    start += s;
  }
  return out;
}

// PyTorch semantics: pieces of ceil(size / chunks), so there may be fewer than `chunks`.
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  check(x.defined(), "chunk", "undefined tensor");
  check(chunks > 0, "chunk", "chunks must be positive, got {}", chunks);
  check(x.dim() > 0, "chunk", "cannot chunk a 0-d tensor");
  const int64_t d = normalize_dim(dim, x.dim(), "chunk");
  const int64_t size = x.shape()[d];
  if (size == 0) {  // torch gives `chunks` empty tensors
    HM_CHECK(chunks <= (int64_t{1} << 20), "chunk", "{} chunks of the empty dim {} of {} would be {} empty tensors",
             chunks, d, str(x.shape()), chunks);
    return split(x, std::vector<int64_t>(static_cast<size_t>(chunks), 0), d);
  }
  return split(x, (size - 1) / chunks + 1, d);  // ceil(size / chunks) without size + chunks wrapping
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& dims_in) {
  check(x.defined(), "flip", "undefined tensor");
  std::vector<int64_t> dims;
  for (int64_t v : dims_in) dims.push_back(normalize_dim(v, x.dim(), "flip"));
  std::sort(dims.begin(), dims.end());
  HM_CHECK(std::adjacent_find(dims.begin(), dims.end()) == dims.end(), "flip", "dim repeated in {}", str(dims_in));
  if (x.dim() == 0) dims.clear();
  Tensor src = x.contiguous();
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  flip_kernel(x.device(), src, dims, out);
  return autograd::record("flip", out, {x}, [dims](const Tensor& g, const NeedsGrad&) { return Grads{flip(g, dims)}; });
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, double value) {
  check(x.defined(), "pad", "undefined tensor");
  const int64_t npad = static_cast<int64_t>(pads.size());
  HM_CHECK(npad % 2 == 0 && npad / 2 <= x.dim(), "pad",
           "pads {} must hold (before, after) pairs for at most {} dims of {}", str(pads), x.dim(), str(x.shape()));
  // Negative pads crop: copy the kept part of x (src) into the interior of out (dst).
  Shape shape = x.shape();
  for (int64_t k = 0; k < npad / 2; ++k) {
    const int64_t d = x.dim() - 1 - k;
    shape[d] = checked_add(shape[d], checked_add(pads[2 * k], pads[2 * k + 1], "pad"), "pad");
    HM_CHECK(shape[d] >= 0, "pad", "pads ({}, {}) make dim {} of {} negative ({})", pads[2 * k], pads[2 * k + 1], d,
             str(x.shape()), shape[d]);
  }
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  fill_kernel(x.device(), out, value);
  Tensor src = x, dst = out;
  for (int64_t k = 0; k < npad / 2; ++k) {
    const int64_t d = x.dim() - 1 - k, before = pads[2 * k], after = pads[2 * k + 1];
    const int64_t crop_front = std::max<int64_t>(-before, 0), crop_back = std::max<int64_t>(-after, 0);
    const int64_t length = std::max<int64_t>(x.shape()[d] - crop_front - crop_back, 0);
    src = detail::slice_alias(src, d, std::min(crop_front, x.shape()[d]), length);
    dst = detail::slice_alias(dst, d, std::min(std::max<int64_t>(before, 0), shape[d]), length);
  }
  if (src.numel() > 0) copy_kernel(x.device(), src, dst);
  std::vector<int64_t> inverse;
  for (int64_t p : pads) inverse.push_back(-p);
  return autograd::record("pad", out, {x}, [inverse](const Tensor& g, const NeedsGrad&) {
    return Grads{pad(g, inverse, 0.0)};  // crops the padding, zero-fills what was cropped
  });
}

namespace {

Tensor triangle(std::string_view fn, const Tensor& x, int64_t diagonal, bool upper) {
  check(x.defined(), fn, "undefined tensor");
  HM_CHECK(x.dim() >= 2, fn, "expected a tensor with at least 2 dims, got {}", x.desc());
  // Beyond +-(rows + cols) every diagonal keeps all or nothing; clamping keeps the kernels'
  // row + diagonal (+ 1) inside int64 for any diagonal, 2^63 - 1 included.
  const int64_t limit = x.shape()[x.dim() - 2] + x.shape()[x.dim() - 1];
  diagonal = std::clamp(diagonal, -limit, limit);
  Tensor src = x.contiguous();
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  triangle_kernel(x.device(), src, diagonal, upper, out);
  return autograd::record(fn, out, {x}, [diagonal, upper](const Tensor& g, const NeedsGrad&) {
    return Grads{upper ? triu(g, diagonal) : tril(g, diagonal)};
  });
}

}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle("tril", x, diagonal, false); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle("triu", x, diagonal, true); }

}  // namespace hm
