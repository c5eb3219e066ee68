// Tensor's PyTorch-style methods, declared in core/tensor.h and defined here, above core: each
// forwards to the free function of the same name, so a method and its function are one op (one
// gradient, one set of checks and messages).
#include <ostream>

#include "harmonic/core/print.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/binary.h"
#include "harmonic/ops/extrema.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/shape_views.h"
#include "harmonic/ops/softmax.h"
#include "harmonic/ops/sum.h"
#include "harmonic/ops/unary.h"

namespace hm {

Tensor Tensor::reshape(Shape shape) const { return hm::reshape(*this, std::move(shape)); }
Tensor Tensor::view(Shape shape) const { return hm::view(*this, std::move(shape)); }
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const { return hm::flatten(*this, start_dim, end_dim); }
Tensor Tensor::permute(const std::vector<int64_t>& dims) const { return hm::permute(*this, dims); }
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const { return hm::transpose(*this, dim0, dim1); }
Tensor Tensor::squeeze(int64_t dim) const { return hm::squeeze(*this, dim); }
Tensor Tensor::squeeze() const { return hm::squeeze(*this); }
Tensor Tensor::unsqueeze(int64_t dim) const { return hm::unsqueeze(*this, dim); }
Tensor Tensor::select(int64_t dim, int64_t index) const { return hm::select(*this, dim, index); }
Tensor Tensor::operator[](int64_t index) const { return hm::select(*this, 0, index); }
Tensor Tensor::sum(const Dims& dims, bool keepdim) const { return hm::sum(*this, dims, keepdim); }
Tensor Tensor::mean(const Dims& dims, bool keepdim) const { return hm::mean(*this, dims, keepdim); }
Tensor Tensor::matmul(const Tensor& other) const { return hm::matmul(*this, other); }
Tensor Tensor::relu() const { return hm::relu(*this); }
Tensor Tensor::exp() const { return hm::exp(*this); }
Tensor Tensor::log() const { return hm::log(*this); }
Tensor Tensor::abs() const { return hm::abs(*this); }
Tensor Tensor::pow(double exponent) const { return hm::pow(*this, exponent); }
Tensor Tensor::pow(const Tensor& exponent) const { return hm::pow(*this, exponent); }
Tensor Tensor::clamp(double lo, double hi) const { return hm::clamp(*this, lo, hi); }
Tensor Tensor::softmax(int64_t dim) const { return hm::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return hm::log_softmax(*this, dim); }
Tensor Tensor::max() const { return hm::amax(*this); }
Tensor Tensor::min() const { return hm::amin(*this); }
Tensor& Tensor::add_(const Tensor& other, double alpha) {
  hm::add_(*this, other, alpha);
  return *this;
}
Tensor& Tensor::mul_(double s) {
  hm::mul_(*this, s);
  return *this;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << to_string(t); }

}  // namespace hm
