// mse_loss: one fused kernel forward and one backward.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/mse_loss.h"
#include "harmonic/ops/mse_loss_kernels.h"

namespace hm {

using autograd::NeedsGrad;
using autograd::Saved;
using detail::contiguous_nograd;
using Grads = std::vector<Tensor>;

Tensor mse_loss(const Tensor& input_in_arg, const Tensor& target_in_arg, Reduction reduction) {
  const Tensor input_in = autocast_widen(input_in_arg);  // bfloat16 under autocast: computed in float32
  const Tensor target_in = autocast_widen(target_in_arg);
  check(input_in.defined() && target_in.defined(), "mse_loss", "undefined tensor");
  HM_CHECK(input_in.shape() == target_in.shape(), "mse_loss", "input {} and target {} must have the same shape",
           str(input_in.shape()), str(target_in.shape()));
  HM_CHECK(input_in.dtype() == target_in.dtype() && input_in.device() == target_in.device(), "mse_loss",
           "input {} and target {} differ in dtype or device", input_in.desc(), target_in.desc());
  HM_CHECK(input_in.dtype() == DType::Float32 || input_in.dtype() == DType::Float64, "mse_loss",
           "expected float32 or float64 tensors, got {}", input_in.desc());
  Tensor input = contiguous_nograd(input_in), target = contiguous_nograd(target_in);
  Tensor out = Tensor::empty(reduction == Reduction::None ? input.shape() : Shape{}, input.dtype(), input.device());
  mse_loss_kernel(input.device(), input, target, reduction, out);
  const double numel = static_cast<double>(input.numel());
  bool rec = autograd::will_record({input_in, target_in});
  return autograd::record(
      "mse_loss", out, {input_in, target_in},
      [sx = rec ? Saved(input) : Saved(), st = rec ? Saved(target) : Saved(), reduction, numel](const Tensor& g_in,
                                                                                                const NeedsGrad& n) {
        const Tensor& input = sx.get();
        Tensor g = g_in.contiguous();
        const double scale = reduction == Reduction::Mean ? 1.0 / numel : 1.0;
        Tensor dx, dt;  // dt = -dx, from the same kernel with the scale negated
        if (n[0]) {
          dx = Tensor::empty(input.shape(), input.dtype(), input.device());
          mse_loss_backward_kernel(input.device(), input, st.get(), g, scale, dx);
        }
        if (n[1]) {
          dt = Tensor::empty(input.shape(), input.dtype(), input.device());
          mse_loss_backward_kernel(input.device(), input, st.get(), g, -scale, dt);
        }
        return Grads{dx, dt};
      });
}

}  // namespace hm
