// dropout and dropout_add: a counter-based mask that backward regenerates from (seed, offset)
// instead of storing it.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/philox_draw.h"
#include "harmonic/ops/dropout.h"
#include "harmonic/ops/dropout_kernels.h"
#include "harmonic/ops/elementwise.h"

namespace hm {

using autograd::NeedsGrad;
using Grads = std::vector<Tensor>;

Tensor dropout(const Tensor& x_in, double p, bool training, Generator* gen) {
  check(x_in.defined(), "dropout", "undefined tensor");
  check(p >= 0.0 && p <= 1.0, "dropout", "probability p must be in [0, 1], got {}", p);
  HM_CHECK(is_floating(x_in.dtype()) && x_in.dtype() != DType::Float16, "dropout",
           "expected a float32, float64 or bfloat16 tensor, got {}", x_in.desc());
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

namespace {

void check_dropout_add(const Tensor& x_in, const Tensor& r_in, double p) {
  check(x_in.defined() && r_in.defined(), "dropout_add", "undefined tensor");
  check(p >= 0.0 && p <= 1.0, "dropout_add", "probability p must be in [0, 1], got {}", p);
  HM_CHECK(is_floating(r_in.dtype()) && r_in.dtype() != DType::Float16, "dropout_add",
           "expected a float32, float64 or bfloat16 tensor, got {}", r_in.desc());
  const bool dtypes_ok = x_in.dtype() == r_in.dtype() || mixes_bf16_and_float32(x_in.dtype(), r_in.dtype());
  HM_CHECK(x_in.shape() == r_in.shape() && dtypes_ok && x_in.device() == r_in.device(), "dropout_add",
           "x {} and r {} must have one shape, dtype and device", x_in.desc(), r_in.desc());
}

}  // namespace

Tensor detail::dropout_add_composed(const Tensor& x, const Tensor& r, double p, bool training, Generator* gen) {
  check_dropout_add(x, r, p);
  return add(x, dropout(r, p, training, gen));
}

Tensor dropout_add(const Tensor& x_in, const Tensor& r_in, double p, bool training, Generator* gen) {
  check_dropout_add(x_in, r_in, p);
  if (!training || p == 0.0) return add(x_in, r_in);
  // The kernel takes a bfloat16 r beside a float32 x (autocast's branch on its residual stream).
  if (x_in.dtype() == DType::BFloat16 && r_in.dtype() == DType::Float32)
    return add(x_in, dropout(r_in, p, training, gen));
  Tensor x, r;
  {
    NoGradGuard guard;
    x = x_in.contiguous(), r = r_in.contiguous();
  }
  Generator& g = gen ? *gen : default_generator();
  // Drawn as dropout draws, captured graphs included.
  const PhiloxDraw draw = p < 1.0 ? reserve_philox(g, static_cast<uint64_t>(r.numel()), r.device())
                                  : PhiloxDraw{g.seed(), 0, Tensor()};
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  dropout_add_kernel(x.device(), x, r, p, draw.seed, draw.offset, draw.base, out);
  return autograd::record("dropout_add", out, {x_in, r_in},
                          [p, draw](const Tensor& g_in, const NeedsGrad& need) {
                            Tensor dr;
                            if (need[1]) {  // dropout's backward: the same mask and scale
                              Tensor g = g_in.contiguous();
                              dr = Tensor::empty(g.shape(), g.dtype(), g.device());
                              dropout_kernel(g.device(), g, p, draw.seed, draw.offset, draw.base, dr);
                            }
                            return Grads{need[0] ? g_in : Tensor(), dr};
                          });
}

}  // namespace hm
