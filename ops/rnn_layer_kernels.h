// Kernel slots of rnn_layer's cuDNN path (ops/rnn_layer.h). CUDA bodies only
// (cuda/rnn_layer.cu): no CPU kernel and no host twin, so rnn_layer_route never sends a CPU or
// emulated tensor here.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/rnn_recurrence_kernels.h"

namespace hm {

// What the forward leaves for the backward: cuDNN's packed weights (as they were at the
// forward) and its reserve space (undefined when not training). Byte buffers held as tensors
// of the layer's dtype so the caching allocator owns them.
struct RnnCudnnState {
  Tensor weight_space;
  Tensor reserve_space;
  bool bias = false;  // the forward's descriptor: with both biases or none
  bool tf32 = false;  // ... and its math type (cuda::allow_tf32() at the forward)
};

// x (T, B, in) contiguous; w_ih (G*H, in), w_hh (G*H, H) contiguous; b_ih, b_hh (G*H) both
// defined or both undefined; h0, c0 (B, H) or undefined (zeros). Writes y: (T, B, H) h_t at every
// step, and for LSTM (T+1, B, H) with row T c_{T-1}. `training`: keep the reserve space.
inline Kernel<RnnCudnnState(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& w_hh,
                            const Tensor& b_hh, const Tensor& h0, const Tensor& c0, const Tensor& y, bool training)>
    rnn_cudnn_forward_kernel{"rnn_cudnn_forward"};

// Backward given g_y (y's shape: rows 0..T-1 the gradient of every h_t, h_n's included; row T
// for LSTM the gradient of c_n) and the forward's state, x, h0, c0 and y. Writes g_x (T, B, in),
// g_h0 and g_c0 (B, H), and the weight gradients g_w_ih, g_b_ih, g_w_hh, g_b_hh; any output may
// be undefined (not wanted), the weight gradients all four or none (biases as the forward's).
inline Kernel<void(RnnCell cell, const RnnCudnnState& state, const Tensor& g_y, const Tensor& x, const Tensor& h0,
                   const Tensor& c0, const Tensor& y, const Tensor& g_x, const Tensor& g_h0, const Tensor& g_c0,
                   const Tensor& g_w_ih, const Tensor& g_b_ih, const Tensor& g_w_hh, const Tensor& g_b_hh)>
    rnn_cudnn_backward_kernel{"rnn_cudnn_backward"};

}  // namespace hm
