// CUDA kernels of the fused RNN/LSTM/GRU recurrences (ops/rnn_recurrence_kernels.h), with the
// element formulas of ops/rnn_recurrence_functors.h (the CPU kernels' own). A step is two
// launches, whatever the cell: the GEMM h_{t-1} W_hh^T + b_hh (gemm_kernel: cuBLAS) and one
// element-wise kernel over (B, H) for the gates, in place of the composed form's dozen small ops
// per step. Backward, in reverse: the gates' gradients (one kernel), then d h_{t-1} = ghw_t W_hh
// (one GEMM); at the end d W_hh as two GEMMs over all T*B rows and d b_hh as column sums in row
// order (no atomics).
#include "harmonic/core/factories.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/rnn_recurrence_functors.h"
#include "harmonic/ops/rnn_recurrence_kernels.h"

namespace hm::cuda {
namespace {

struct RnnMath {
  template <class T>
  HM_HD static T sigmoid(T x) {
    return T(1) / (T(1) + CudaMath::exp(-x));
  }
  template <class T>
  HM_HD static T tanh(T x) {
    return CudaMath::tanh(x);
  }
};

template <class T>
struct StepForward {  // element (b, j) of step t
  RnnCell cell;
  const T *xw, *hw, *h0, *c0;  // hw (B, G*H) of this step, bias included
  T *y, *act, *c;
  int64_t t, B, H;
  HM_HD void operator()(int64_t e) const {
    const int64_t b = e / H, j = e % H, GH = rnn_gates(cell) * H, row = t * B + b;
    const T* x = xw + row * GH;
    const T* hwb = hw + b * GH;
    T* h = y + row * H;
    if (cell == RnnCell::Tanh) {
      rnn::tanh_forward_at<RnnMath>(j, x, hwb, h);
    } else if (cell == RnnCell::LSTM) {
      const T* cp = t == 0 ? c0 + b * H : c + (row - B) * H;
      rnn::lstm_forward_at<RnnMath>(H, j, x, hwb, cp, act + row * 4 * H, c + row * H, h);
    } else {
      const T* hp = t == 0 ? h0 + b * H : y + (row - B) * H;
      rnn::gru_forward_at<RnnMath>(H, j, x, hwb, hp, act + row * 4 * H, h);
    }
  }
};

template <class T>
struct StepBackward {  // element (b, j) of step t
  RnnCell cell;
  const T *gy, *h0, *c0, *y, *act, *c;
  T *dh, *dc, *gx, *ghw;  // dh, dc (B, H); gx, ghw (T, B, G*H)
  int64_t t, B, H;
  HM_HD void operator()(int64_t e) const {
    const int64_t b = e / H, j = e % H, GH = rnn_gates(cell) * H, row = t * B + b;
    const T* g = gy + row * H;
    T* dhb = dh + b * H;
    if (cell == RnnCell::Tanh) {
      rnn::tanh_backward_at(j, g, dhb, y + row * H, gx + row * GH);
    } else if (cell == RnnCell::LSTM) {
      const T* cp = t == 0 ? c0 + b * H : c + (row - B) * H;
      rnn::lstm_backward_at<RnnMath>(H, j, g, dhb, act + row * 4 * H, cp, c + row * H, dc + b * H, gx + row * GH);
    } else {
      const T* hp = t == 0 ? h0 + b * H : y + (row - B) * H;
      rnn::gru_backward_at(H, j, g, dhb, act + row * 4 * H, hp, gx + row * GH, ghw + row * GH);
    }
  }
};

template <class T>
struct CopyInto {  // dst[e] = src[e]
  const T* src;
  T* dst;
  HM_HD void operator()(int64_t e) const { dst[e] = src[e]; }
};

template <class T>
struct ColumnSums {  // out[j] = sum_r m[r, j], rows in order
  const T* m;
  T* out;
  int64_t rows, cols;
  HM_HD void operator()(int64_t j) const {
    T acc = T(0);
    for (int64_t r = 0; r < rows; ++r) acc += m[r * cols + j];
    out[j] = acc;
  }
};

// c (m, n) = alpha op(a) op(b) + beta c (+ bias), all row-major contiguous.
void gemm(Device device, DType dtype, int64_t m, int64_t n, int64_t k, const void* a, bool trans_a, const void* b,
          bool trans_b, void* c, double beta, const void* bias = nullptr) {
  if (m == 0 || n == 0) return;
  GemmDesc d;
  d.dtype = dtype;
  d.m = m, d.n = n, d.k = k;
  d.a = a, d.lda = trans_a ? m : k, d.trans_a = trans_a;
  d.b = b, d.ldb = trans_b ? k : n, d.trans_b = trans_b;
  d.c = c, d.ldc = n;
  d.beta = beta;
  d.bias = bias;
  gemm_kernel(device, d);
}

template <class T>
const T* in(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.raw_data()) : nullptr;
}
template <class T>
T* out(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.raw_data()) : nullptr;
}

template <Exec E>
void forward_on(RnnCell cell, const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                const Tensor& c0, const Tensor& y, const Tensor& act, const Tensor& c) {
  const int device = kernel_device(E, "rnn_forward", {&xw, &w_hh, &h0, &y});
  const int64_t steps = xw.size(0), B = xw.size(1), H = w_hh.size(1), GH = rnn_gates(cell) * H;
  dispatch_float(xw.dtype(), "rnn_forward", [&]<class T>() {
    Tensor hw = empty({B, GH}, {.dtype = xw.dtype(), .device = xw.device()});
    for (int64_t t = 0; t < steps; ++t) {
      const T* hp = t == 0 ? in<T>(h0) : in<T>(y) + (t - 1) * B * H;  // h_{t-1} (B, H)
      gemm(xw.device(), xw.dtype(), B, GH, H, hp, false, in<T>(w_hh), true, out<T>(hw), 0.0,
           b_hh.defined() ? b_hh.raw_data() : nullptr);
      for_each_index(
          E, device, B * H,
          StepForward<T>{cell, in<T>(xw), in<T>(hw), in<T>(h0), in<T>(c0), out<T>(y), out<T>(act), out<T>(c), t, B, H});
    }
    if (cell == RnnCell::LSTM)  // y's row T: c_{T-1}
      for_each_index(E, device, B * H, CopyInto<T>{in<T>(c) + (steps - 1) * B * H, out<T>(y) + steps * B * H});
  });
}

template <Exec E>
void backward_on(RnnCell cell, const Tensor& g_y, const Tensor& w_hh, const Tensor& h0, const Tensor& c0,
                 const Tensor& y, const Tensor& act, const Tensor& c, const Tensor& g_xw, const Tensor& g_w_hh,
                 const Tensor& g_b_hh, const Tensor& g_h0, const Tensor& g_c0) {
  const int device = kernel_device(E, "rnn_backward", {&g_y, &w_hh, &h0, &y, &g_xw, &g_h0});
  const int64_t steps = g_xw.size(0), B = g_xw.size(1), H = w_hh.size(1), GH = rnn_gates(cell) * H;
  const TensorOptions opt{.dtype = g_xw.dtype(), .device = g_xw.device()};
  dispatch_float(g_xw.dtype(), "rnn_backward", [&]<class T>() {
    // The gradient of hw = h_{t-1} W_hh^T + b_hh at every step: g_xw itself but for the GRU.
    Tensor ghw = cell == RnnCell::GRU ? empty({steps, B, GH}, opt) : g_xw;
    Tensor dh = zeros({B, H}, opt);  // the recurrent d h_t, ends as d h0
    Tensor dc = cell == RnnCell::LSTM ? empty({B, H}, opt) : Tensor();
    if (dc.defined()) for_each_index(E, device, B * H, CopyInto<T>{in<T>(g_y) + steps * B * H, out<T>(dc)});  // d c_n
    for (int64_t t = steps - 1; t >= 0; --t) {
      for_each_index(E, device, B * H,
                     StepBackward<T>{cell, in<T>(g_y), in<T>(h0), in<T>(c0), in<T>(y), in<T>(act), in<T>(c), out<T>(dh),
                                     out<T>(dc), out<T>(g_xw), out<T>(ghw), t, B, H});
      // d h_{t-1} = ghw_t W_hh (+ the GRU's direct z dh, already in dh)
      gemm(g_xw.device(), g_xw.dtype(), B, H, GH, in<T>(ghw) + t * B * GH, false, in<T>(w_hh), false, out<T>(dh),
           cell == RnnCell::GRU ? 1.0 : 0.0);
    }
    for_each_index(E, device, B * H, CopyInto<T>{in<T>(dh), out<T>(g_h0)});
    if (g_c0.defined()) for_each_index(E, device, B * H, CopyInto<T>{in<T>(dc), out<T>(g_c0)});
    if (g_b_hh.defined()) for_each_index(E, device, GH, ColumnSums<T>{in<T>(ghw), out<T>(g_b_hh), steps * B, GH});
    if (g_w_hh.defined()) {  // d W_hh = sum_t ghw_t^T h_{t-1}: h0's step, then the rest at once
      gemm(g_xw.device(), g_xw.dtype(), GH, H, B, in<T>(ghw), true, in<T>(h0), false, out<T>(g_w_hh), 0.0);
      if (steps > 1)
        gemm(g_xw.device(), g_xw.dtype(), GH, H, (steps - 1) * B, in<T>(ghw) + B * GH, true, in<T>(y), false,
             out<T>(g_w_hh), 1.0);
    }
  });
}

[[maybe_unused]] const bool bound = bind_cuda(rnn_forward_kernel, forward_on<Exec::Device>, forward_on<Exec::Host>) &&
                                    bind_cuda(rnn_backward_kernel, backward_on<Exec::Device>, backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
