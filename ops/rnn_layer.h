// One recurrent layer over a whole sequence, input projection included: what nn::Recurrent runs
// per layer when fused. Two ways to compute it, chosen here and only here (rnn_layer_route):
//   Own:   linear(x, w_ih, b_ih) as one GEMM over all steps, then the fused recurrence of
//          ops/rnn_recurrence.h (CPU kernels, or the CUDA kernels of cuda/rnn_recurrence.cu);
//   Cudnn: cuDNN's RNN API for the whole layer (cuda/rnn_layer.cu), forward and backward data
//          and weights, one tape entry that keeps cuDNN's reserve space for its backward.
// cuDNN is off by default: hm::cuda::set_rnn_backend(RnnBackend::Cudnn) or HARMONIC_CUDNN_RNN=1
// turns it on for CUDA tensors; every case it does not cover runs Own (the rules are in
// rnn_layer_route, one comment per exclusion).
#pragma once
#include "harmonic/core/tensor.h"
#include "harmonic/ops/rnn_recurrence.h"
#include "harmonic/ops/rnn_recurrence_kernels.h"

namespace hm {

// x (T, B, in) time-major; w_ih (G*H, in), b_ih (G*H) or undefined, w_hh (G*H, H), b_hh (G*H)
// or undefined; h0, c0 (B, H) or undefined (zeros; c0 for LSTM only). Gate orders and formulas
// as ops/rnn_recurrence_kernels.h (PyTorch's). Differentiable w.r.t. every tensor input.
RecurrenceOutput rnn_layer(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& w_hh,
                           const Tensor& b_hh = {}, const Tensor& h0 = {}, const Tensor& c0 = {});

enum class RnnLayerPath { Own, Cudnn };
// Which path rnn_layer takes for these inputs (the routing itself; tests ask it).
RnnLayerPath rnn_layer_route(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& w_hh,
                             const Tensor& b_hh, const Tensor& h0, const Tensor& c0);

namespace cuda {
// The recurrent layers' backend on CUDA devices: Own (the default) or Cudnn where it covers
// the case. HARMONIC_CUDNN_RNN=1 sets Cudnn at start-up (read once); set_rnn_backend at any time.
enum class RnnBackend { Own, Cudnn };
RnnBackend rnn_backend();
void set_rnn_backend(RnnBackend backend);

// Sets the backend for a scope (tests, benchmarks), then restores it. Not thread-safe.
class RnnBackendGuard {
 public:
  explicit RnnBackendGuard(RnnBackend backend) : previous_(rnn_backend()) { set_rnn_backend(backend); }
  ~RnnBackendGuard() { set_rnn_backend(previous_); }
  RnnBackendGuard(const RnnBackendGuard&) = delete;
  RnnBackendGuard& operator=(const RnnBackendGuard&) = delete;

 private:
  RnnBackend previous_;
};

// Forward and backward passes rnn_layer has run through cuDNN since start-up: the GPU tests
// check with them that the path they meant to test ran.
int64_t& rnn_cudnn_runs();
}  // namespace cuda

}  // namespace hm
