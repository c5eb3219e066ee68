// Views: ops that only relabel (shape, strides, offset) over the input's storage. Each is
// recorded on the tape with a backward that maps the gradient back to the input's layout.
#include <algorithm>

#include "harmonic/autograd/node.h"
#include "harmonic/core/checked_math.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/binary_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_common.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {

using autograd::NeedsGrad;
using Grads = std::vector<Tensor>;

namespace detail {

// Walks the input dims from the back, grouping them into chunks that are contiguous in
// memory; each chunk must be matched exactly by a run of target dims, which then take
// strides inside that chunk. Size-1 dims match anywhere.
std::optional<Strides> view_strides(const Shape& shape, const Strides& strides, const Shape& target) {
  if (shape.empty()) return Strides(target.size(), 1);
  const int64_t numel = numel_of(shape);
  if (numel == 0) {
    if (shape == target) return strides;
    return contiguous_strides(target);
  }
  Strides out(target.size());
  int64_t view_d = static_cast<int64_t>(target.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[d];
    // End of a contiguous chunk?
    if (d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || target[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= target[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace detail

namespace {

void check_defined(const Tensor& x, std::string_view fn) { check(x.defined(), fn, "undefined tensor"); }

// Resolves one -1 and checks the element count.
Shape infer_shape(const Shape& requested, const Tensor& x, std::string_view fn) {
  Shape shape = requested;
  int64_t infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      HM_CHECK(infer < 0, fn, "shape {} has more than one -1", str(requested));
      infer = static_cast<int64_t>(i);
    } else {
      HM_CHECK(shape[i] >= 0, fn, "invalid size {} in shape {}", shape[i], str(requested));
    }
  }
  if (infer >= 0) {
    int64_t known = 1;  // checked: huge sizes beside the -1 must not wrap (UBSan found it)
    for (size_t i = 0; i < shape.size(); ++i)
      if (static_cast<int64_t>(i) != infer) known = checked_mul(known, shape[i], fn);
    HM_CHECK(known != 0 && x.numel() % known == 0, fn, "cannot infer the -1 in {} for input {} ({} elements)",
             str(requested), str(x.shape()), x.numel());
    shape[infer] = x.numel() / known;
  }
  HM_CHECK(numel_of(shape) == x.numel(), fn, "cannot reshape {} ({} elements) into {} ({} elements)", str(x.shape()),
           x.numel(), str(requested), numel_of(shape));
  return shape;
}

// A view of x recorded on the tape; its gradient is g reshaped back to x's shape.
Tensor reshaped_view(std::string_view fn, const Tensor& x, Shape shape, Strides strides) {
  Tensor out = detail::alias(x, std::move(shape), std::move(strides), x.offset());
  return autograd::record(fn, out, {x},
                          [in = x.shape()](const Tensor& g, const NeedsGrad&) { return Grads{reshape(g, in)}; });
}

Tensor permute_impl(std::string_view fn, const Tensor& x, const std::vector<int64_t>& perm) {
  Shape shape;
  Strides strides;
  for (int64_t p : perm) shape.push_back(x.shape()[p]), strides.push_back(x.strides()[p]);
  Tensor out = detail::alias(x, std::move(shape), std::move(strides), x.offset());
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  return autograd::record(fn, out, {x},
                          [inverse](const Tensor& g, const NeedsGrad&) { return Grads{permute(g, inverse)}; });
}

Tensor expand_impl(std::string_view fn, const Tensor& x, const Shape& shape_in) {
  check_defined(x, fn);
  const int64_t n = static_cast<int64_t>(shape_in.size());
  HM_CHECK(n >= x.dim(), fn, "target shape {} has fewer dims than the input {}", str(shape_in), str(x.shape()));
  const int64_t lead = n - x.dim();
  Shape shape(n);
  Strides strides(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t t = shape_in[i];
    if (i < lead) {
      HM_CHECK(t >= 0, fn, "size {} is not allowed for the new leading dim {} of target {}", t, i, str(shape_in));
      shape[i] = t;
      continue;
    }
    int64_t s = x.shape()[i - lead];
    if (t == -1) t = s;
    HM_CHECK(t == s || s == 1, fn, "cannot expand {} to {}: dim {} has size {} (only size-1 dims can grow)",
             str(x.shape()), str(shape_in), i - lead, s);
    HM_CHECK(t >= 0, fn, "invalid size {} in target {}", t, str(shape_in));
    shape[i] = t;
    strides[i] = t == s ? x.strides()[i - lead] : 0;
  }
  Tensor out = detail::alias(x, std::move(shape), std::move(strides), x.offset());
  return autograd::record(fn, out, {x},
                          [in = x.shape()](const Tensor& g, const NeedsGrad&) { return Grads{sum_to(g, in)}; });
}

// The input's shape with `length` elements taken every `step` from `start` along dim; the
// gradient is scattered back into zeros.
Tensor slice_impl(std::string_view fn, const Tensor& x, int64_t dim, int64_t start, int64_t length, int64_t step) {
  Tensor out = detail::slice_alias(x, dim, start, length, step);
  out = autograd::record(fn, out, {x}, [in = x.shape(), dim, start, length, step](const Tensor& g, const NeedsGrad&) {
    Tensor gx = zeros(in, {.dtype = g.dtype(), .device = g.device()});
    if (length > 0) copy_kernel(g.device(), g, detail::slice_alias(gx, dim, start, length, step));
    return Grads{gx};
  });
  // Many slices of one tensor then share one gradient buffer (see Node::accumulate_into).
  if (out.grad_fn())
    out.grad_fn()->accumulate_into = [fn = std::string(fn), dim, start, length, step](const Tensor& buffer,
                                                                                      const Tensor& g) {
      HM_CHECK(g.dim() == buffer.dim() && g.shape()[dim] == length, fn,
               "gradient {} does not match a slice of length {} along dim {}", g.desc(), length, dim);
      if (length == 0) return;
      Tensor view = detail::slice_alias(buffer, dim, start, length, step);
      HM_CHECK(view.shape() == g.shape(), fn, "gradient {} does not match the slice shape {}", g.desc(),
               str(view.shape()));
      add_inplace_kernel(g.device(), view, g, 1.0);
    };
  return out;
}

}  // namespace

Tensor reshape(const Tensor& x, Shape shape_in) {
  check_defined(x, "reshape");
  Shape shape = infer_shape(shape_in, x, "reshape");
  if (auto strides = detail::view_strides(x.shape(), x.strides(), shape))
    return reshaped_view("reshape", x, shape, *strides);
  Tensor c = x.contiguous();  // the one copy (recorded as clone)
  return reshaped_view("reshape", c, shape, contiguous_strides(shape));
}

Tensor view(const Tensor& x, Shape shape_in) {
  check_defined(x, "view");
  Shape shape = infer_shape(shape_in, x, "view");
  auto strides = detail::view_strides(x.shape(), x.strides(), shape);
  HM_CHECK(strides.has_value(), "view",
           "shape {} is not compatible with input shape {} and strides {} (a view cannot merge dims that are not "
           "contiguous in memory); use reshape(), which copies",
           str(shape_in), str(x.shape()), str(x.strides()));
  return reshaped_view("view", x, shape, *strides);
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  check_defined(x, "flatten");
  if (x.dim() == 0) return reshape(x, {1});
  int64_t s = normalize_dim(start_dim, x.dim(), "flatten"), e = normalize_dim(end_dim, x.dim(), "flatten");
  HM_CHECK(s <= e, "flatten", "start_dim {} comes after end_dim {} for {}", start_dim, end_dim, str(x.shape()));
  Shape shape(x.shape().begin(), x.shape().begin() + s);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= x.shape()[d];
  shape.push_back(merged);
  shape.insert(shape.end(), x.shape().begin() + e + 1, x.shape().end());
  return reshape(x, shape);
}

Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  check_defined(x, "permute");
  HM_CHECK(static_cast<int64_t>(dims.size()) == x.dim(), "permute", "got {} dims {} for a tensor of shape {}",
           dims.size(), str(dims), str(x.shape()));
  std::vector<int64_t> perm;
  std::vector<bool> seen(x.dim(), false);
  for (int64_t d : dims) {
    int64_t n = normalize_dim(d, x.dim(), "permute");
    HM_CHECK(!seen[n], "permute", "dim {} repeated in {}", d, str(dims));
    seen[n] = true;
    perm.push_back(n);
  }
  return permute_impl("permute", x, perm);
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  check_defined(x, "transpose");
  std::vector<int64_t> perm(x.dim());
  for (int64_t d = 0; d < x.dim(); ++d) perm[d] = d;
  if (x.dim() == 0) {  // dims 0 / -1 accepted, nothing to swap
    normalize_dim(dim0, 0, "transpose"), normalize_dim(dim1, 0, "transpose");
    return permute_impl("transpose", x, perm);
  }
  std::swap(perm[normalize_dim(dim0, x.dim(), "transpose")], perm[normalize_dim(dim1, x.dim(), "transpose")]);
  return permute_impl("transpose", x, perm);
}

Tensor expand(const Tensor& x, const Shape& shape) { return expand_impl("expand", x, shape); }
Tensor broadcast_to(const Tensor& x, const Shape& shape) { return expand_impl("broadcast_to", x, shape); }

Tensor squeeze(const Tensor& x, int64_t dim) {
  check_defined(x, "squeeze");
  if (x.dim() == 0) {
    normalize_dim(dim, 0, "squeeze");
    return reshaped_view("squeeze", x, {}, {});
  }
  int64_t d = normalize_dim(dim, x.dim(), "squeeze");
  Shape shape = x.shape();
  Strides strides = x.strides();
  if (shape[d] == 1) shape.erase(shape.begin() + d), strides.erase(strides.begin() + d);
  return reshaped_view("squeeze", x, shape, strides);
}

Tensor squeeze(const Tensor& x) {
  check_defined(x, "squeeze");
  Shape shape;
  Strides strides;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (x.shape()[d] != 1) shape.push_back(x.shape()[d]), strides.push_back(x.strides()[d]);
  return reshaped_view("squeeze", x, shape, strides);
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  check_defined(x, "unsqueeze");
  int64_t d = normalize_dim(dim, x.dim() + 1, "unsqueeze");
  Shape shape = x.shape();
  Strides strides = x.strides();
  int64_t stride = d < x.dim() ? shape[d] * strides[d] : 1;  // PyTorch's choice; any value is valid for size 1
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return reshaped_view("unsqueeze", x, shape, strides);
}

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  check_defined(x, "slice");
  check(x.dim() > 0, "slice", "cannot slice a 0-d tensor");
  check(step >= 1, "slice", "step must be >= 1, got {}", step);
  int64_t d = normalize_dim(dim, x.dim(), "slice");
  const int64_t size = x.shape()[d];
  // Python slicing: negative bounds count from the end, then clamp to [0, size].
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, 0, size);
  // ceil((end - start) / step) without end - start + step - 1, which overflows for a huge step.
  int64_t length = end > start ? 1 + (end - start - 1) / step : 0;
  return slice_impl("slice", x, d, start, length, step);
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  check_defined(x, "narrow");
  check(x.dim() > 0, "narrow", "cannot narrow a 0-d tensor");
  int64_t d = normalize_dim(dim, x.dim(), "narrow");
  const int64_t size = x.shape()[d];
  HM_CHECK(start >= -size && start <= size, "narrow", "start {} is out of range for dim {} of size {} in {}", start, d,
           size, str(x.shape()));
  if (start < 0) start += size;
  HM_CHECK(length >= 0 && length <= size - start, "narrow",  // not start + length: it can wrap
           "start {} + length {} does not fit in dim {} of size {} in {}", start, length, d, size, str(x.shape()));
  return slice_impl("narrow", x, d, start, length, 1);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  check_defined(x, "select");
  check(x.dim() > 0, "select", "cannot select from a 0-d tensor");
  int64_t d = normalize_dim(dim, x.dim(), "select");
  const int64_t size = x.shape()[d];
  HM_CHECK(index >= -size && index < size, "select", "index {} is out of range for dim {} of size {} in {}", index, d,
           size, str(x.shape()));
  if (index < 0) index += size;
  Tensor out = detail::select_alias(x, d, index);
  out = autograd::record("select", out, {x}, [in = x.shape(), d, index](const Tensor& g, const NeedsGrad&) {
    Tensor gx = zeros(in, {.dtype = g.dtype(), .device = g.device()});
    copy_kernel(g.device(), g, detail::select_alias(gx, d, index));
    return Grads{gx};
  });
  // x[:, t] for every t then shares one gradient buffer (see Node::accumulate_into).
  if (out.grad_fn())
    out.grad_fn()->accumulate_into = [d, index](const Tensor& buffer, const Tensor& g) {
      Tensor view = detail::select_alias(buffer, d, index);
      HM_CHECK(view.shape() == g.shape(), "select", "gradient {} does not match the selected shape {}", g.desc(),
               str(view.shape()));
      add_inplace_kernel(g.device(), view, g, 1.0);
    };
  return out;
}

}  // namespace hm
