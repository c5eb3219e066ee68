#include "harmonic/core/print.h"

#include <cmath>

#include "harmonic/autograd/node.h"

namespace hm {
namespace {

constexpr int64_t kEdge = 3;        // elements shown at each end of an elided dim
constexpr int64_t kSummarise = 1000;  // elide when the tensor has more elements than this

void print_dim(std::string& out, const std::vector<double>& v, const Shape& shape, const Strides& strides,
               size_t dim, int64_t base, bool summarise, DType dtype, int indent) {
  if (dim == shape.size()) {
    double x = v[base];
    if (dtype == DType::Bool) out += x != 0 ? "true" : "false";
    else if (dtype == DType::Int64) out += fmt::format("{}", static_cast<int64_t>(x));
    else out += fmt::format("{:.4f}", x);
    return;
  }
  out += "[";
  int64_t n = shape[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * kEdge && i == kEdge) {
      out += dim + 1 == shape.size() ? "..., " : fmt::format("...,\n{:{}}", "", indent + 1);
      i = n - kEdge;
    }
    print_dim(out, v, shape, strides, dim + 1, base + i * strides[dim], summarise, dtype, indent + 1);
    if (i + 1 < n) out += dim + 1 == shape.size() ? ", " : fmt::format(",\n{:{}}", "", indent + 1);
  }
  out += "]";
}

}  // namespace

std::string to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  std::vector<double> v = t.to_vector();
  std::string out = "tensor(";
  print_dim(out, v, t.shape(), contiguous_strides(t.shape()), 0, 0, t.numel() > kSummarise, t.dtype(), 7);
  out += fmt::format(", dtype={}", dtype_name(t.dtype()));
  if (!t.device().is_cpu()) out += fmt::format(", device={}", t.device().str());
  if (t.grad_fn()) out += fmt::format(", grad_fn={}", t.grad_fn()->name);
  else if (t.requires_grad()) out += ", requires_grad=true";
  return out + ")";
}

}  // namespace hm
