// embedding: a gather with a race-free scatter-add backward.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/embedding_kernels.h"
#include "harmonic/ops/embedding.h"

namespace hm {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

Tensor embedding(const Tensor& weight_in, const Tensor& indices_in, int64_t padding_idx) {
  check(weight_in.defined() && indices_in.defined(), "embedding", "undefined tensor");
  HM_CHECK(weight_in.dim() == 2 && (weight_in.dtype() == DType::Float32 || weight_in.dtype() == DType::Float64),
           "embedding", "weight must be a float32/float64 (V, D) table, got {}", weight_in.desc());
  HM_CHECK(indices_in.dtype() == DType::Int64, "embedding", "indices must be int64, got {}", indices_in.desc());
  HM_CHECK(weight_in.device() == indices_in.device(), "embedding", "weight {} and indices {} on different devices",
           weight_in.desc(), indices_in.desc());
  check(padding_idx < weight_in.size(0), "embedding", "padding_idx {} is out of range for {} rows", padding_idx,
        weight_in.size(0));
  Tensor weight, indices;
  {
    NoGradGuard guard;
    weight = weight_in.contiguous(), indices = indices_in.contiguous();
  }
  Shape shape = indices.shape();
  shape.push_back(weight.size(1));
  Tensor out = Tensor::empty(shape, weight.dtype(), weight.device());  // (..., D)
  embedding_kernel(weight.device(), weight, indices, out);
  bool rec = autograd::will_record({weight_in});
  return autograd::record("embedding", out, {weight_in, indices_in},
                          [si = rec ? Saved(indices) : Saved(), wshape = weight.shape(), dtype = weight.dtype(),
                           padding_idx](const Tensor& g_in, const NeedsGrad&) {
                            const Tensor& indices = si.get();
                            Tensor g = g_in.contiguous();
                            Tensor dw = Tensor::empty(wshape, dtype, g.device());
                            embedding_backward_kernel(g.device(), g, indices, padding_idx, dw);
                            return Grads{dw, Tensor()};
                          });
}

}  // namespace hm
