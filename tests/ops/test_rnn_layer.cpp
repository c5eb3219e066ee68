// rnn_layer (ops/rnn_layer.h): the cuDNN switch exists and defaults off, the route never takes
// cuDNN for CPU tensors or the emulated device (runs without a GPU), and the layer equals its
// definition, linear then the fused recurrence. The cuDNN path itself is tested on a GPU
// (tests/cuda/test_rnn_cudnn.cpp).
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/rnn_layer.h"
#include "tests/device_harness.h"

namespace rnn_layer_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] rnn_layer: the cuDNN switch defaults off and the route takes cuDNN only on a real device") {
  // HARMONIC_CUDNN_RNN is unset in the test environment: Own unless set in code.
  CHECK(cuda::rnn_backend() == cuda::RnnBackend::Own);
  Generator gen(1);
  Tensor x = uniform({4, 2, 3}, -1, 1, {}, &gen), w_ih = uniform({20, 3}, -1, 1, {}, &gen);
  Tensor w_hh = uniform({20, 5}, -1, 1, {}, &gen), b = uniform({20}, -1, 1, {}, &gen);
  {
    cuda::RnnBackendGuard on(cuda::RnnBackend::Cudnn);
    CHECK(cuda::rnn_backend() == cuda::RnnBackend::Cudnn);
    CHECK(rnn_layer_route(RnnCell::LSTM, x, w_ih, b, w_hh, b, {}, {}) == RnnLayerPath::Own);
    const int64_t runs = cuda::rnn_cudnn_runs();
    RecurrenceOutput r = rnn_layer(RnnCell::LSTM, x, w_ih, b, w_hh, b);
    CHECK(cuda::rnn_cudnn_runs() == runs);
    CHECK(r.output.shape() == Shape{4, 2, 5});
    // The emulated device (HARMONIC_EMULATE_CUDA=1; ctest runs "[cuda]" cases once more on it)
    // has CUDA tensors but no cuDNN; a real device takes cuDNN, but for one bias without the other.
    if (cuda::available()) {
      Tensor xc = x.to(Device::cuda(0)), wi = w_ih.to(Device::cuda(0)), wh = w_hh.to(Device::cuda(0));
      Tensor bc = b.to(Device::cuda(0));
      const RnnLayerPath want = cuda::emulated() ? RnnLayerPath::Own : RnnLayerPath::Cudnn;
      CHECK(rnn_layer_route(RnnCell::LSTM, xc, wi, {}, wh, {}, {}, {}) == want);
      CHECK(rnn_layer_route(RnnCell::LSTM, xc, wi, bc, wh, bc, {}, {}) == want);
      CHECK(rnn_layer_route(RnnCell::LSTM, xc, wi, bc, wh, {}, {}, {}) == RnnLayerPath::Own);
    }
    // Without a device there is no CUDA tensor to route.
  }
  CHECK(cuda::rnn_backend() == cuda::RnnBackend::Own);  // the guard restores the default
}

TEST_CASE("rnn_layer is linear then the fused recurrence, and checks its inputs") {
  Generator gen(2);
  Tensor x = uniform({5, 3, 4}, -1, 1, {.dtype = DType::Float64}, &gen);
  Tensor w_ih = uniform({9, 4}, -1, 1, {.dtype = DType::Float64}, &gen);
  Tensor w_hh = uniform({9, 3}, -1, 1, {.dtype = DType::Float64}, &gen);
  Tensor b_ih = uniform({9}, -1, 1, {.dtype = DType::Float64}, &gen),
         b_hh = uniform({9}, -1, 1, {.dtype = DType::Float64}, &gen);
  Tensor h0 = uniform({3, 3}, -1, 1, {.dtype = DType::Float64}, &gen);
  RecurrenceOutput got = rnn_layer(RnnCell::GRU, x, w_ih, b_ih, w_hh, b_hh, h0);
  RecurrenceOutput want = gru_recurrence(linear(x, w_ih, b_ih), w_hh, b_hh, h0);
  CHECK(same_values(want.output, got.output));
  CHECK(same_values(want.h_n, got.h_n));
  CHECK_THROWS_WITH_AS(rnn_layer(RnnCell::LSTM, x, w_ih, b_ih, w_hh, b_hh), doctest::Contains("w_hh must be (4*H, H)"),
                       Error);
  CHECK_THROWS_WITH_AS(rnn_layer(RnnCell::GRU, x, w_ih, b_ih, w_hh, b_hh, h0, h0),
                       doctest::Contains("c0 is LSTM's only"), Error);
  CHECK_THROWS_WITH_AS(rnn_layer(RnnCell::GRU, x, uniform({9, 5}, -1, 1, {.dtype = DType::Float64}, &gen), b_ih, w_hh),
                       doctest::Contains("w_ih must have shape (9, 4)"), Error);
}

}  // namespace rnn_layer_cases
