// softmax and log_softmax over any dim: one fused kernel each way. Backward needs only the
// output y:  softmax: dx = y (g - sum(g y));  log_softmax: dx = g - exp(y) sum(g).
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/softmax_kernels.h"

namespace hm {
namespace {

Tensor softmax_impl(const Tensor& x_in_arg, int64_t dim_in, bool log, std::string_view name) {
  const Tensor x_in = autocast_widen(x_in_arg);  // bfloat16 under autocast: computed in float32
  check(x_in.defined(), name, "undefined tensor");
  HM_CHECK(x_in.dtype() == DType::Float32 || x_in.dtype() == DType::Float64, name,
           "expected a float32 or float64 tensor, got {}", x_in.desc());
  // A 0-d tensor is one class along dim 0 or -1, like PyTorch.
  const int64_t dim = normalize_dim(dim_in, std::max<int64_t>(x_in.dim(), 1), name);
  Tensor x;
  {
    NoGradGuard guard;
    x = x_in.contiguous();
  }
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  softmax_kernel(x.device(), x, dim, log, out);
  bool rec = autograd::will_record({x_in});
  return autograd::record(name, out, {x_in},
                          [sy = rec ? autograd::Saved(out) : autograd::Saved(), dim, log](
                              const Tensor& g_in, const autograd::NeedsGrad&) {
                            const Tensor& y = sy.get();
                            Tensor g = g_in.contiguous();
                            Tensor dx = Tensor::empty(y.shape(), y.dtype(), y.device());
                            softmax_backward_kernel(y.device(), y, g, dim, log, dx);
                            return std::vector<Tensor>{dx};
                          });
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, false, "softmax"); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, true, "log_softmax"); }

}  // namespace hm
