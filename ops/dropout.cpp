// dropout: a counter-based mask that backward regenerates from (seed, offset) instead of
// storing it.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/philox_draw.h"
#include "harmonic/ops/dropout.h"
#include "harmonic/ops/dropout_kernels.h"

namespace hm {

using autograd::NeedsGrad;
using Grads = std::vector<Tensor>;

Tensor dropout(const Tensor& x_in, double p, bool training, Generator* gen) {
  check(x_in.defined(), "dropout", "undefined tensor");
  check(p >= 0.0 && p <= 1.0, "dropout", "probability p must be in [0, 1], got {}", p);
  HM_CHECK(x_in.dtype() == DType::Float32 || x_in.dtype() == DType::Float64, "dropout",
           "expected a float32 or float64 tensor, got {}", x_in.desc());
  if (!training || p == 0.0) return x_in;
  Tensor x;
  {
    NoGradGuard guard;
    x = x_in.contiguous();
  }
  Generator& g = gen ? *gen : default_generator();
  // p = 1 keeps nothing whatever the draw, so it consumes no random numbers. Inside a CUDA
  // graph capture the offset is read on the device at each replay (core/philox_draw.h).
  const PhiloxDraw draw = p < 1.0 ? reserve_philox(g, static_cast<uint64_t>(x.numel()), x.device())
                                  : PhiloxDraw{g.seed(), 0, Tensor()};
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  dropout_kernel(x.device(), x, p, draw.seed, draw.offset, draw.base, out);
  return autograd::record("dropout", out, {x_in}, [p, draw](const Tensor& g_in, const NeedsGrad&) {
    Tensor g = g_in.contiguous();
    Tensor dx = Tensor::empty(g.shape(), g.dtype(), g.device());
    dropout_kernel(g.device(), g, p, draw.seed, draw.offset, draw.base, dx);  // the same mask and scale
    return Grads{dx};
  });
}

}  // namespace hm
