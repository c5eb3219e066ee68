// CPU kernels of the fused RNN/LSTM/GRU recurrences (ops/rnn_recurrence_kernels.h).
//
// Batch rows are independent through time, so each thread takes a block of rows and runs every
// step on it: one single-threaded GEMM h_{t-1} W_hh^T per step, then one pass over the gates,
// with no barrier between steps. Backward runs the same blocks in reverse: one pass giving
// the gate gradients, then dh_{t-1} = dgates_t W_hh. The weight gradient waits for the end,
// where it is one (threaded) GEMM over all T*B rows; the bias gradient is summed per block
// while the gate gradients are still in cache.
#include <algorithm>
#include <cmath>
#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/gemm_rows.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/rnn_recurrence_functors.h"
#include "harmonic/ops/rnn_recurrence_kernels.h"

namespace hm {
namespace {

// Vectorisable float32 polynomials (ops/cpu/vec_math.h), libm for float64.
struct RnnMath {
  HM_VEC_INLINE static float sigmoid(float x) { return vm::sigmoid(x); }
  HM_VEC_INLINE static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
  HM_VEC_INLINE static float tanh(float x) { return vm::tanh(x); }
  HM_VEC_INLINE static double tanh(double x) { return std::tanh(x); }
};

// -- one row of one step (ops/rnn_recurrence_functors.h, element by element) --------------------

template <class T>
void tanh_forward_row(int64_t H, const T* x, const T* hw, T* h) {
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) rnn::tanh_forward_at<RnnMath>(j, x, hw, h);
}

template <class T>
void lstm_forward_row(int64_t H, const T* x, const T* hw, const T* cp, T* a, T* c, T* h) {
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) rnn::lstm_forward_at<RnnMath>(H, j, x, hw, cp, a, c, h);
}

template <class T>
void gru_forward_row(int64_t H, const T* x, const T* hw, const T* hp, T* a, T* h) {
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) rnn::gru_forward_at<RnnMath>(H, j, x, hw, hp, a, h);
}

template <class T>
void tanh_backward_row(int64_t H, const T* gy, const T* dh, const T* h, T* gx) {
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) rnn::tanh_backward_at(j, gy, dh, h, gx);
}

template <class T>
void lstm_backward_row(int64_t H, const T* gy, const T* dh, const T* a, const T* cp, const T* c, T* dc, T* gx) {
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) rnn::lstm_backward_at<RnnMath>(H, j, gy, dh, a, cp, c, dc, gx);
}

template <class T>
void gru_backward_row(int64_t H, const T* gy, T* dh, const T* a, const T* hp, T* gx, T* ghw) {
#pragma omp simd
  for (int64_t j = 0; j < H; ++j) rnn::gru_backward_at(H, j, gy, dh, a, hp, gx, ghw);
}

// Blocks of batch rows, one per thread.
int64_t row_blocks(int64_t B) { return std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), B)); }

template <class T>
void forward_typed(RnnCell cell, const Tensor& xw_t, const Tensor& w_hh_t, const Tensor& b_hh_t, const Tensor& h0_t,
                   const Tensor& c0_t, const Tensor& y_t, const Tensor& act_t, const Tensor& c_t) {
  const int64_t steps = xw_t.size(0), B = xw_t.size(1), H = w_hh_t.size(1), GH = rnn_gates(cell) * H;
  const T *xw = xw_t.data<T>(), *w = w_hh_t.data<T>(), *h0 = h0_t.data<T>();
  const T* bias = b_hh_t.defined() ? b_hh_t.data<T>() : nullptr;
  const T* c0 = c0_t.defined() ? c0_t.data<T>() : nullptr;
  T *y = y_t.data<T>(), *act = act_t.defined() ? act_t.data<T>() : nullptr;
  T* c = c_t.defined() ? c_t.data<T>() : nullptr;
  const int64_t blocks = row_blocks(B);
  parallel_for(blocks, steps * (B / blocks) * GH * (H + 8), [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t b0 = B * k / blocks, nb = B * (k + 1) / blocks - b0;
      std::vector<T> hw(nb * GH);  // (nb, G*H)
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t row = t * B + b0;                          // first (t, b) row of this block
        const T* hp = t == 0 ? h0 + b0 * H : y + (row - B) * H;  // h_{t-1} (nb, H)
        gemm_rows<T>(nb, GH, H, hp, false, w, true, hw.data(), 0.0, bias);
        for (int64_t b = 0; b < nb; ++b) {
          const T* x = xw + (row + b) * GH;
          const T* hwb = hw.data() + b * GH;
          T* h = y + (row + b) * H;
          if (cell == RnnCell::Tanh) {
            tanh_forward_row(H, x, hwb, h);
          } else if (cell == RnnCell::LSTM) {
            const T* cp = t == 0 ? c0 + (b0 + b) * H : c + (row - B + b) * H;
            lstm_forward_row(H, x, hwb, cp, act + (row + b) * 4 * H, c + (row + b) * H, h);
          } else {
            gru_forward_row(H, x, hwb, hp + b * H, act + (row + b) * 4 * H, h);
          }
        }
      }
    }
  });
  if (cell == RnnCell::LSTM) std::copy_n(c + (steps - 1) * B * H, B * H, y + steps * B * H);  // y's row T: c_{T-1}
}

template <class T>
void backward_typed(RnnCell cell, const Tensor& g_y_t, const Tensor& w_hh_t, const Tensor& h0_t, const Tensor& c0_t,
                    const Tensor& y_t, const Tensor& act_t, const Tensor& c_t, const Tensor& g_xw_t,
                    const Tensor& g_w_hh_t, const Tensor& g_b_hh_t, const Tensor& g_h0_t, const Tensor& g_c0_t) {
  const int64_t steps = g_xw_t.size(0), B = g_xw_t.size(1), H = w_hh_t.size(1), GH = rnn_gates(cell) * H;
  const T *gy = g_y_t.data<T>(), *w = w_hh_t.data<T>(), *h0 = h0_t.data<T>(), *y = y_t.data<T>();
  const T* c0 = c0_t.defined() ? c0_t.data<T>() : nullptr;
  const T* act = act_t.defined() ? act_t.data<T>() : nullptr;
  const T* c = c_t.defined() ? c_t.data<T>() : nullptr;
  T *g_xw = g_xw_t.data<T>(), *g_h0 = g_h0_t.data<T>();
  T* g_c0 = g_c0_t.defined() ? g_c0_t.data<T>() : nullptr;
  // The gradient of hw = h_{t-1} W_hh^T + b_hh at every step: g_xw itself but for the GRU.
  Tensor ghw_t = cell == RnnCell::GRU ? empty({steps, B, GH}, {.dtype = g_xw_t.dtype()}) : g_xw_t;
  T* ghw = ghw_t.data<T>();
  const bool want_b = g_b_hh_t.defined();
  const int64_t blocks = row_blocks(B);
  std::vector<T> db(want_b ? blocks * GH : 0, T(0));  // per block, summed in block order below
  parallel_for(blocks, steps * (B / blocks) * GH * (H + 8), [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t b0 = B * k / blocks, nb = B * (k + 1) / blocks - b0;
      std::vector<T> dh(nb * H, T(0)), dc;  // (nb, H): recurrent d h_t, d c_t
      if (cell == RnnCell::LSTM) dc.assign(gy + (steps * B + b0) * H, gy + (steps * B + b0 + nb) * H);  // d c_n
      T* dbk = want_b ? db.data() + k * GH : nullptr;
      for (int64_t t = steps - 1; t >= 0; --t) {
        const int64_t row = t * B + b0;
        const T* hp = t == 0 ? h0 + b0 * H : y + (row - B) * H;  // h_{t-1} (nb, H)
        for (int64_t b = 0; b < nb; ++b) {
          const T* g = gy + (row + b) * H;
          T* gx = g_xw + (row + b) * GH;
          T* dhb = dh.data() + b * H;
          if (cell == RnnCell::Tanh) {
            tanh_backward_row(H, g, dhb, y + (row + b) * H, gx);
          } else if (cell == RnnCell::LSTM) {
            const T* cp = t == 0 ? c0 + (b0 + b) * H : c + (row - B + b) * H;
            lstm_backward_row(H, g, dhb, act + (row + b) * 4 * H, cp, c + (row + b) * H, dc.data() + b * H, gx);
          } else {
            gru_backward_row(H, g, dhb, act + (row + b) * 4 * H, hp + b * H, gx, ghw + (row + b) * GH);
          }
          if (dbk) {
            const T* gb = ghw + (row + b) * GH;
#pragma omp simd
            for (int64_t j = 0; j < GH; ++j) dbk[j] += gb[j];
          }
        }
        // d h_{t-1} = ghw_t W_hh (+ the GRU's direct z dh, already in dh)
        gemm_rows<T>(nb, H, GH, ghw + row * GH, false, w, false, dh.data(), cell == RnnCell::GRU ? 1.0 : 0.0);
      }
      std::copy(dh.begin(), dh.end(), g_h0 + b0 * H);
      if (g_c0) std::copy(dc.begin(), dc.end(), g_c0 + b0 * H);
    }
  });
  if (want_b) {
    T* g_b = g_b_hh_t.data<T>();
    std::fill(g_b, g_b + GH, T(0));
    for (int64_t k = 0; k < blocks; ++k)
      for (int64_t j = 0; j < GH; ++j) g_b[j] += db[k * GH + j];
  }
  if (g_w_hh_t.defined()) {  // d W_hh = sum_t ghw_t^T h_{t-1}: h0's step, then the rest at once
    T* g_w = g_w_hh_t.data<T>();
    gemm_rows<T>(GH, H, B, ghw, true, h0, false, g_w, 0.0);
    if (steps > 1) gemm_rows<T>(GH, H, (steps - 1) * B, ghw + B * GH, true, y, false, g_w, 1.0);
  }
}

void cpu_rnn_forward(RnnCell cell, const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0,
                     const Tensor& c0, const Tensor& y, const Tensor& act, const Tensor& c) {
  dispatch_float(xw.dtype(), "rnn_forward",
                 [&]<class T>() { forward_typed<T>(cell, xw, w_hh, b_hh, h0, c0, y, act, c); });
}

void cpu_rnn_backward(RnnCell cell, const Tensor& g_y, const Tensor& w_hh, const Tensor& h0, const Tensor& c0,
                      const Tensor& y, const Tensor& act, const Tensor& c, const Tensor& g_xw, const Tensor& g_w_hh,
                      const Tensor& g_b_hh, const Tensor& g_h0, const Tensor& g_c0) {
  dispatch_float(g_y.dtype(), "rnn_backward", [&]<class T>() {
    backward_typed<T>(cell, g_y, w_hh, h0, c0, y, act, c, g_xw, g_w_hh, g_b_hh, g_h0, g_c0);
  });
}

[[maybe_unused]] const bool rnn_recurrence_bound =
    (rnn_forward_kernel.cpu = cpu_rnn_forward, rnn_backward_kernel.cpu = cpu_rnn_backward, true);

}  // namespace
}  // namespace hm
