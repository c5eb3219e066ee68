// rnn_layer's cuDNN path (ops/rnn_layer.h, cuda/rnn_layer.cu) against the own kernels on the same
// device: outputs, final states and the gradients of every input, per cell, at the FRU paper's
// shapes and at small odd ones. GPU only: without a device each case prints "skipped: no CUDA
// device", and on the emulated device that it needs a real one (the route never takes cuDNN
// there; tests/ops/test_rnn_layer.cpp checks that).
#include <doctest/doctest.h>

#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/nn/recurrent.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/rnn_layer.h"
#include "harmonic/ops/sum.h"
#include "tests/device_harness.h"

namespace rnn_cudnn_cases {

using namespace hm;
using namespace hm::test;

struct RnnCudnnCase {
  RnnCell cell;
  int64_t T, B, in, H;
  bool bias = true, states = true;  // states: random h0 (and c0) instead of zeros
  DType dtype = DType::Float32;
};

const char* rnn_cudnn_cell_name(RnnCell cell) {
  return cell == RnnCell::LSTM ? "lstm" : cell == RnnCell::GRU ? "gru" : "tanh";
}

// output, h_n, c_n, then the gradients of x, w_ih, b_ih, w_hh, b_hh, h0, c0 (undefined where the
// input is), on the CPU; inputs drawn from `seed` on the CPU, so both backends see the same.
std::vector<Tensor> rnn_cudnn_run(const RnnCudnnCase& c, cuda::RnnBackend backend) {
  cuda::RnnBackendGuard guard(backend);
  Generator gen(7);
  const bool lstm = c.cell == RnnCell::LSTM;
  const int64_t GH = rnn_gates(c.cell) * c.H;
  const double k = 1.0 / std::sqrt(static_cast<double>(c.H));  // nn::LSTM's init range
  const TensorOptions cpu{.dtype = c.dtype};
  const Device dev = Device::cuda(0);
  auto leaf = [&](const Shape& s, double scale) {
    Tensor t = uniform(s, -scale, scale, cpu, &gen).to(dev).detach();
    t.requires_grad_(true);
    return t;
  };
  Tensor x = leaf({c.T, c.B, c.in}, 1.0), w_ih = leaf({GH, c.in}, k), w_hh = leaf({GH, c.H}, k);
  Tensor b_ih = c.bias ? leaf({GH}, k) : Tensor(), b_hh = c.bias ? leaf({GH}, k) : Tensor();
  Tensor h0 = c.states ? leaf({c.B, c.H}, 0.5) : Tensor(), c0 = c.states && lstm ? leaf({c.B, c.H}, 0.5) : Tensor();
  RecurrenceOutput r = rnn_layer(c.cell, x, w_ih, b_ih, w_hh, b_hh, h0, c0);
  // Upstream gradients for every output, so d h_n and d c_n reach the backward too.
  Tensor loss = sum(r.output * uniform(r.output.shape(), -1, 1, cpu, &gen).to(dev)) +
                sum(r.h_n * uniform(r.h_n.shape(), -1, 1, cpu, &gen).to(dev));
  if (lstm) loss = loss + sum(r.c_n * uniform(r.c_n.shape(), -1, 1, cpu, &gen).to(dev));
  loss.backward();
  auto host = [](const Tensor& t) { return t.defined() ? t.detach().to(Device::cpu()) : Tensor(); };
  std::vector<Tensor> out{host(r.output), host(r.h_n), host(r.c_n)};
  for (const Tensor& t : {x, w_ih, b_ih, w_hh, b_hh, h0, c0}) out.push_back(t.defined() ? host(t.grad()) : Tensor());
  return out;
}

// A real device: the emulated one (HARMONIC_EMULATE_CUDA=1) has no cuDNN, and the route keeps
// it on the own kernels.
bool rnn_cudnn_device() {
  announce_targets();
  if (cuda::available() && cuda::emulated()) MESSAGE("skipped: cuDNN needs a real CUDA device (this one is emulated)");
  return cuda::available() && !cuda::emulated();
}

void rnn_cudnn_compare(const RnnCudnnCase& c) {
  const char* names[] = {"output", "h_n", "c_n", "d x", "d w_ih", "d b_ih", "d w_hh", "d b_hh", "d h0", "d c0"};
  INFO(rnn_cudnn_cell_name(c.cell) << " T=" << c.T << " B=" << c.B << " in=" << c.in << " H=" << c.H
                                   << " bias=" << c.bias << " states=" << c.states << " " << dtype_name(c.dtype));
  std::vector<Tensor> own = rnn_cudnn_run(c, cuda::RnnBackend::Own);
  const int64_t runs = cuda::rnn_cudnn_runs();
  std::vector<Tensor> got = rnn_cudnn_run(c, cuda::RnnBackend::Cudnn);
  CHECK(cuda::rnn_cudnn_runs() == runs + 2);  // the forward and the backward went through cuDNN
  // Both sides are float32 FMA math (no TF32) over up to 300 steps: the sums differ in order only.
  const bool f64 = c.dtype == DType::Float64;
  for (size_t i = 0; i < own.size(); ++i) {
    REQUIRE_MESSAGE(own[i].defined() == got[i].defined(), names[i]);
    if (own[i].defined()) check_close(own[i], got[i], names[i], f64 ? 1e-20 : i < 3 ? 1e-8 : 1e-6);
  }
}

TEST_CASE("[cuda] rnn_layer through cuDNN matches the own kernels at the FRU paper's shapes") {
  if (!rnn_cudnn_device()) return;
  for (RnnCell cell : {RnnCell::LSTM, RnnCell::GRU, RnnCell::Tanh}) {
    rnn_cudnn_compare({cell, 300, 32, 128, 128});  // text: batch 32, T 300, input 128, hidden 128
    rnn_cudnn_compare({cell, 196, 256, 1, 200});   // pixel: batch 256, T 196, input 1, hidden 200
  }
}

TEST_CASE("[cuda] rnn_layer through cuDNN matches the own kernels at small odd shapes") {
  if (!rnn_cudnn_device()) return;
  for (RnnCell cell : {RnnCell::LSTM, RnnCell::GRU, RnnCell::Tanh}) {
    rnn_cudnn_compare({cell, 5, 3, 7, 11});
    rnn_cudnn_compare({cell, 1, 1, 1, 1});
    rnn_cudnn_compare({cell, 9, 5, 3, 13, /*bias=*/false});
    rnn_cudnn_compare({cell, 6, 4, 5, 9, true, /*states=*/false});
    rnn_cudnn_compare({cell, 4, 3, 6, 5, true, true, DType::Float64});
  }
}

TEST_CASE("[cuda] a stacked batch-first nn::LSTM trains the same through cuDNN") {
  if (!rnn_cudnn_device()) return;
  auto run = [](cuda::RnnBackend backend) {
    cuda::RnnBackendGuard guard(backend);
    Generator gen(3);
    nn::LSTM lstm(6, 10, {.num_layers = 2, .batch_first = true}, &gen);
    lstm.to(Device::cuda(0));
    Tensor x = uniform({4, 7, 6}, -1, 1, {}, &gen).to(Device::cuda(0));  // (B, T, in)
    nn::RecurrentOutput r = lstm.forward(x);
    (sum(r.output) + sum(r.h_n * r.h_n) + sum(r.c_n)).backward();
    std::vector<Tensor> out{r.output.detach().to(Device::cpu()), r.c_n.detach().to(Device::cpu())};
    for (const Tensor& p : lstm.weight_ih) out.push_back(p.grad().to(Device::cpu()));
    for (const Tensor& p : lstm.bias_hh) out.push_back(p.grad().to(Device::cpu()));
    return out;
  };
  std::vector<Tensor> own = run(cuda::RnnBackend::Own);
  const int64_t runs = cuda::rnn_cudnn_runs();
  std::vector<Tensor> got = run(cuda::RnnBackend::Cudnn);
  CHECK(cuda::rnn_cudnn_runs() == runs + 4);  // two layers, forward and backward
  for (size_t i = 0; i < own.size(); ++i) check_close(own[i], got[i], "value " + std::to_string(i), 1e-8);
}

}  // namespace rnn_cudnn_cases
