// rnn_layer: checks, the choice between the own kernels and cuDNN (rnn_layer_route), and the
// cuDNN path's tape entry (its compute is behind the slots of ops/rnn_layer_kernels.h).
#include "harmonic/ops/rnn_layer.h"

#include <atomic>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "harmonic/autograd/node.h"
#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/rnn_layer_kernels.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace cuda {
namespace {
// -1: not set in code, HARMONIC_CUDNN_RNN decides; else the RnnBackend.
std::atomic<int> rnn_backend_forced{-1};
}  // namespace

RnnBackend rnn_backend() {
  const int f = rnn_backend_forced.load(std::memory_order_relaxed);
  if (f >= 0) return static_cast<RnnBackend>(f);
  static const RnnBackend from_env = [] {
    const char* v = std::getenv("HARMONIC_CUDNN_RNN");
    return v && std::string_view(v) == "1" ? RnnBackend::Cudnn : RnnBackend::Own;
  }();
  return from_env;
}

void set_rnn_backend(RnnBackend backend) {
  rnn_backend_forced.store(static_cast<int>(backend), std::memory_order_relaxed);
}

int64_t& rnn_cudnn_runs() {
  static int64_t runs = 0;
  return runs;
}
}  // namespace cuda

namespace {

const char* rnn_layer_name(RnnCell cell) {
  return cell == RnnCell::Tanh ? "rnn_layer(tanh)" : cell == RnnCell::LSTM ? "rnn_layer(lstm)" : "rnn_layer(gru)";
}

// Every input against x and w_hh (the recurrence checks its own again on the Own path).
void rnn_layer_check(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& w_hh,
                     const Tensor& b_hh, const Tensor& h0, const Tensor& c0) {
  const char* fn = rnn_layer_name(cell);
  const int64_t G = rnn_gates(cell);
  check(x.defined() && w_ih.defined() && w_hh.defined(), fn, "x, w_ih and w_hh must be defined");
  HM_CHECK(x.dim() == 3, fn, "x must be (T, B, in), got {}", x.desc());
  HM_CHECK(w_hh.dim() == 2 && w_hh.size(0) == G * w_hh.size(1), fn, "w_hh must be ({}*H, H), got {}", G, w_hh.desc());
  const int64_t T = x.size(0), B = x.size(1), in = x.size(2), H = w_hh.size(1);
  HM_CHECK(T > 0 && B > 0 && in > 0 && H > 0, fn, "empty sizes: x {}, w_hh {}", x.desc(), w_hh.desc());
  HM_CHECK(is_floating(x.dtype()) && x.dtype() != DType::BFloat16 && x.dtype() != DType::Float16, fn,
           "x must be float32 or float64, got {}", x.desc());
  auto check_one = [&](const Tensor& t, const Shape& want, const char* what) {
    if (!t.defined()) return;
    HM_CHECK(t.shape() == want, fn, "{} must have shape {}, got {} (x {}, w_hh {})", what, str(want), t.desc(),
             x.desc(), w_hh.desc());
    HM_CHECK(t.dtype() == x.dtype() && t.device() == x.device(), fn, "{} must match x ({}), got {}", what, x.desc(),
             t.desc());
  };
  check_one(w_hh, {G * H, H}, "w_hh");
  check_one(w_ih, {G * H, in}, "w_ih");
  check_one(b_ih, {G * H}, "b_ih");
  check_one(b_hh, {G * H}, "b_hh");
  check_one(h0, {B, H}, "h0");
  if (cell == RnnCell::LSTM)
    check_one(c0, {B, H}, "c0");
  else
    check(!c0.defined(), fn, "c0 is LSTM's only, got {}", c0.desc());
}

RecurrenceOutput rnn_layer_own(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih,
                               const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0, const Tensor& c0) {
  Tensor xw = linear(x, w_ih, b_ih);  // (T, B, G*H): one GEMM for all steps
  if (cell == RnnCell::LSTM) return lstm_recurrence(xw, w_hh, b_hh, h0, c0);
  if (cell == RnnCell::GRU) return gru_recurrence(xw, w_hh, b_hh, h0);
  return rnn_tanh_recurrence(xw, w_hh, b_hh, h0);
}

RecurrenceOutput rnn_layer_cudnn(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih,
                                 const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0, const Tensor& c0) {
  const bool lstm = cell == RnnCell::LSTM;
  const int64_t T = x.size(0), B = x.size(1), H = w_hh.size(1);
  auto contig = [](const Tensor& t) { return t.defined() ? t.contiguous() : t; };
  Tensor xc = x.contiguous(), wic = w_ih.contiguous(), whc = w_hh.contiguous();
  Tensor bic = contig(b_ih), bhc = contig(b_hh), h0c = contig(h0), c0c = lstm ? contig(c0) : Tensor();
  Tensor y = empty({lstm ? T + 1 : T, B, H}, {.dtype = x.dtype(), .device = x.device()});
  std::vector<Tensor> inputs{x, w_ih, b_ih, w_hh, b_hh, h0, c0};
  const bool training = autograd::will_record(inputs);
  RnnCudnnState state = rnn_cudnn_forward_kernel(x.device(), cell, xc, wic, bic, whc, bhc, h0c, c0c, y, training);
  ++cuda::rnn_cudnn_runs();
  if (training) {
    autograd::Saved s_x(xc), s_h0(h0c), s_c0(c0c), s_y(y);
    const bool has_bias = b_ih.defined();
    const Shape x_shape = xc.shape(), wi_shape = wic.shape(), wh_shape = whc.shape();
    y = autograd::record(rnn_layer_name(cell), y, inputs, [=](const Tensor& g, const autograd::NeedsGrad& needs) {
      Tensor xs = s_x.get(), ys = s_y.get();
      const TensorOptions o{.dtype = ys.dtype(), .device = ys.device()};
      // cuDNN computes the four weight gradients together: all or none.
      const bool weights = needs[1] || needs[2] || needs[3] || needs[4];
      Tensor g_x = needs[0] ? empty(x_shape, o) : Tensor();
      Tensor g_h0 = needs[5] ? empty({B, H}, o) : Tensor(), g_c0 = needs[6] ? empty({B, H}, o) : Tensor();
      Tensor g_wi = weights ? empty(wi_shape, o) : Tensor(), g_wh = weights ? empty(wh_shape, o) : Tensor();
      Tensor g_bi = weights && has_bias ? empty({wh_shape[0]}, o) : Tensor();
      Tensor g_bh = weights && has_bias ? empty({wh_shape[0]}, o) : Tensor();
      rnn_cudnn_backward_kernel(ys.device(), cell, state, g.contiguous(), xs, s_h0.get(), s_c0.get(), ys, g_x, g_h0,
                                g_c0, g_wi, g_bi, g_wh, g_bh);
      ++cuda::rnn_cudnn_runs();
      return std::vector<Tensor>{g_x, g_wi, g_bi, g_wh, g_bh, g_h0, g_c0};
    });
  }
  return {lstm ? narrow(y, 0, 0, T) : y, select(y, 0, T - 1), lstm ? select(y, 0, T) : Tensor()};
}

}  // namespace

RnnLayerPath rnn_layer_route(RnnCell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& w_hh,
                             const Tensor& b_hh, const Tensor&, const Tensor&) {
  // Off unless asked for (the default): the own kernels are what CI verifies.
  if (cuda::rnn_backend() != cuda::RnnBackend::Cudnn) return RnnLayerPath::Own;
  // CPU tensors, and the emulated device, which runs host twins and cuDNN has none.
  if (!x.device().is_cuda() || cuda_emulated()) return RnnLayerPath::Own;
  // A build without CUDA binds no cuDNN body.
  if (!rnn_cudnn_forward_kernel.cuda || !rnn_cudnn_backward_kernel.cuda) return RnnLayerPath::Own;
  // cuDNN's RNNs take float32 and float64 (and half, which the op does not).
  if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64) return RnnLayerPath::Own;
  // Under autocast the own path's projection is a bf16 GEMM; cuDNN would run it in float32.
  if (autocast_dtype().has_value()) return RnnLayerPath::Own;
  // One bias without the other: cuDNN has single-bias modes, but not mapped here.
  if (b_ih.defined() != b_hh.defined()) return RnnLayerPath::Own;
  // cuDNN's sizes are int32; the packed sequence (T*B rows) must be indexable too.
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (x.size(0) * x.size(1) > kMax || x.size(2) > kMax || w_hh.size(0) > kMax || w_ih.size(1) > kMax)
    return RnnLayerPath::Own;
  // Initial states are taken as given (h0 and c0 may be any values or zeros); masks, packed
  // variable-length sequences and dropout inside the recurrence are not features of the op, and
  // nn::Recurrent applies its between-layer dropout outside, one layer per call.
  return RnnLayerPath::Cudnn;
}

RecurrenceOutput rnn_layer(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& w_hh,
                           const Tensor& b_hh, const Tensor& h0, const Tensor& c0) {
  rnn_layer_check(cell, x, w_ih, b_ih, w_hh, b_hh, h0, c0);
  return rnn_layer_route(cell, x, w_ih, b_ih, w_hh, b_hh, h0, c0) == RnnLayerPath::Cudnn
             ? rnn_layer_cudnn(cell, x, w_ih, b_ih, w_hh, b_hh, h0, c0)
             : rnn_layer_own(cell, x, w_ih, b_ih, w_hh, b_hh, h0, c0);
}

}  // namespace hm
