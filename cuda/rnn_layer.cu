// rnn_layer's cuDNN path (ops/rnn_layer_kernels.h): one layer of LSTM, GRU or tanh RNN over the
// whole sequence through cuDNN 9's RNN API. The layer's weights are copied into cuDNN's packed
// weight space at every forward (cudnnGetRNNWeightParams gives each gate's matrix and bias; the
// copies are device to device), the weight gradients are copied out of a packed gradient space
// the same way. cuDNN's gate orders are PyTorch's: LSTM i, f, g, o (linLayerID 0-3 input
// matrices, 4-7 recurrent), GRU r, z, n (0-2, 3-5; its n gate is r (W_hn h + b_hn) as ours),
// tanh RNN 0 and 1. Descriptors are built once per (device, cell, dtype, sizes, bias, math type)
// and kept; workspace, reserve and weight spaces come from the caching allocator.
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/device/context.cuh"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/rnn_layer_kernels.h"

namespace hm::cuda {
namespace {

cudnnDataType_t rnn_cudnn_dtype(DType d) { return d == DType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

cudnnRNNMode_t rnn_cudnn_mode(RnnCell cell) {
  return cell == RnnCell::LSTM ? CUDNN_LSTM : cell == RnnCell::GRU ? CUDNN_GRU : CUDNN_RNN_TANH;
}

// (device, cell, dtype, T, B, in, H, bias, tf32)
using RnnCudnnKey = std::tuple<int, int, int, int64_t, int64_t, int64_t, int64_t, bool, bool>;

// The descriptors of one key and the sizes cuDNN asks for.
struct RnnCudnnPlan {
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnDropoutDescriptor_t dropout = nullptr;  // probability 0: cuDNN wants one even for a single layer
  cudnnRNNDataDescriptor_t x_desc = nullptr, y_desc = nullptr;
  cudnnTensorDescriptor_t h_desc = nullptr;                    // (1, B, H): h and c, initial and final
  cudnnTensorDescriptor_t m_desc = nullptr, b_desc = nullptr;  // filled by cudnnGetRNNWeightParams
  Tensor seq_lengths;                                          // int32[B] = T on the device (in Int64 storage)
  size_t weight_bytes = 0, work_training = 0, reserve_training = 0, work_inference = 0;
};

// Every plan made so far (leaked with the process, like the handles: no cuDNN calls at exit).
RnnCudnnPlan& rnn_cudnn_plan(cudnnHandle_t handle, const RnnCudnnKey& key, DType dtype) {
  static std::mutex mutex;
  static auto* plans = new std::map<RnnCudnnKey, RnnCudnnPlan>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plans->find(key);
  if (it != plans->end()) return it->second;

  const auto [device, cell_int, dtype_int, T, B, in, H, bias, tf32] = key;
  const RnnCell cell = static_cast<RnnCell>(cell_int);
  const cudnnDataType_t dt = rnn_cudnn_dtype(dtype);
  // float32 without TF32 unless cuda::allow_tf32() (FMA_MATH rules out tensor-core kernels).
  const cudnnMathType_t math = dtype == DType::Float32 && !tf32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  RnnCudnnPlan p;
  HM_CUDNN_CHECK(cudnnCreateDropoutDescriptor(&p.dropout));
  HM_CUDNN_CHECK(cudnnSetDropoutDescriptor(p.dropout, handle, 0.0f, nullptr, 0, 0));
  HM_CUDNN_CHECK(cudnnCreateRNNDescriptor(&p.rnn));
  HM_CUDNN_CHECK(cudnnSetRNNDescriptor_v8(
      p.rnn, CUDNN_RNN_ALGO_STANDARD, rnn_cudnn_mode(cell), bias ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS,
      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt, dt, math, static_cast<int32_t>(in), static_cast<int32_t>(H),
      static_cast<int32_t>(H), 1, p.dropout, CUDNN_RNN_PADDED_IO_DISABLED));
  // Every sequence is T long, so the packed sequence-major layout is the (T, B, features) array.
  std::vector<int> lengths(static_cast<size_t>(B), static_cast<int>(T));
  HM_CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&p.x_desc));
  HM_CUDNN_CHECK(cudnnSetRNNDataDescriptor(p.x_desc, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, static_cast<int>(T),
                                           static_cast<int>(B), static_cast<int>(in), lengths.data(), nullptr));
  HM_CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&p.y_desc));
  HM_CUDNN_CHECK(cudnnSetRNNDataDescriptor(p.y_desc, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, static_cast<int>(T),
                                           static_cast<int>(B), static_cast<int>(H), lengths.data(), nullptr));
  const std::array<int, 3> h_dims{1, static_cast<int>(B), static_cast<int>(H)};
  const std::array<int, 3> h_strides{static_cast<int>(B * H), static_cast<int>(H), 1};
  HM_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.h_desc));
  HM_CUDNN_CHECK(cudnnSetTensorNdDescriptor(p.h_desc, dt, 3, h_dims.data(), h_strides.data()));
  HM_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.m_desc));
  HM_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.b_desc));
  HM_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(handle, p.rnn, &p.weight_bytes));
  HM_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(handle, p.rnn, CUDNN_FWD_MODE_TRAINING, p.x_desc, &p.work_training,
                                           &p.reserve_training));
  size_t no_reserve = 0;
  HM_CUDNN_CHECK(
      cudnnGetRNNTempSpaceSizes(handle, p.rnn, CUDNN_FWD_MODE_INFERENCE, p.x_desc, &p.work_inference, &no_reserve));
  p.seq_lengths = empty({(B + 1) / 2}, {.dtype = DType::Int64, .device = Device::cuda(device)});
  copy_words_to_device(device, p.seq_lengths.raw_data(), lengths.data(), lengths.size() * sizeof(int));
  return plans->emplace(key, std::move(p)).first->second;
}

// A device buffer of at least `bytes` bytes (one element at least, so its address is real).
Tensor rnn_cudnn_bytes(size_t bytes, DType dtype, Device device) {
  const size_t elem = dtype_size(dtype);
  return empty({static_cast<int64_t>(std::max<size_t>(1, (bytes + elem - 1) / elem))},
               {.dtype = dtype, .device = device});
}

// Elements a descriptor filled by cudnnGetRNNWeightParams describes.
int64_t rnn_cudnn_elements(cudnnTensorDescriptor_t desc) {
  cudnnDataType_t dt;
  int nb = 0;
  std::array<int, 8> dims{}, strides{};
  HM_CUDNN_CHECK(cudnnGetTensorNdDescriptor(desc, 8, &dt, &nb, dims.data(), strides.data()));
  int64_t n = 1;
  for (int i = 0; i < nb; ++i) n *= dims[static_cast<size_t>(i)];
  return n;
}

// Copies between the layer's tensors and a packed weight space: for every matrix and bias of
// the layer, to_packed ? packed <- tensor block : tensor block <- packed. w_ih (G*H, in),
// w_hh (G*H, H), b_ih, b_hh (G*H) (biases undefined when the plan has none); gate k is rows
// k*H..(k+1)*H, cuDNN's linLayerID k (input side) and G + k (recurrent side).
void rnn_cudnn_copy_params(cudnnHandle_t handle, RnnCudnnPlan& p, RnnCell cell, void* packed, const Tensor& w_ih,
                           const Tensor& b_ih, const Tensor& w_hh, const Tensor& b_hh, bool to_packed, int device) {
  const int64_t G = rnn_gates(cell), H = w_hh.size(1), in = w_ih.size(1);
  const size_t elem = dtype_size(w_hh.dtype());
  cudaStream_t s = stream(device);
  for (int64_t id = 0; id < 2 * G; ++id) {
    const bool input_side = id < G;
    const int64_t k = id % G, cols = input_side ? in : H;
    void *m_addr = nullptr, *b_addr = nullptr;
    HM_CUDNN_CHECK(cudnnGetRNNWeightParams(handle, p.rnn, 0, p.weight_bytes, packed, static_cast<int32_t>(id), p.m_desc,
                                           &m_addr, p.b_desc, &b_addr));
    check(m_addr != nullptr && rnn_cudnn_elements(p.m_desc) == H * cols, "rnn_cudnn",
          "cuDNN's matrix {} has {} elements, expected {}x{}", id, m_addr ? rnn_cudnn_elements(p.m_desc) : 0, H, cols);
    char* w = static_cast<char*>((input_side ? w_ih : w_hh).raw_data()) + k * H * cols * elem;
    const size_t m_bytes = static_cast<size_t>(H * cols) * elem;
    HM_CUDA_CHECK(to_packed ? cudaMemcpyAsync(m_addr, w, m_bytes, cudaMemcpyDeviceToDevice, s)
                            : cudaMemcpyAsync(w, m_addr, m_bytes, cudaMemcpyDeviceToDevice, s));
    const Tensor& b = input_side ? b_ih : b_hh;
    if (!b.defined()) continue;
    check(b_addr != nullptr && rnn_cudnn_elements(p.b_desc) == H, "rnn_cudnn",
          "cuDNN's bias {} has {} elements, expected {}", id, b_addr ? rnn_cudnn_elements(p.b_desc) : 0, H);
    char* bp = static_cast<char*>(b.raw_data()) + k * H * elem;
    const size_t b_bytes = static_cast<size_t>(H) * elem;
    HM_CUDA_CHECK(to_packed ? cudaMemcpyAsync(b_addr, bp, b_bytes, cudaMemcpyDeviceToDevice, s)
                            : cudaMemcpyAsync(bp, b_addr, b_bytes, cudaMemcpyDeviceToDevice, s));
  }
}

// cuDNN is handed 256-byte aligned addresses only, as the caching allocator's blocks are and as
// PyTorch's fresh tensors are: a block at an offset (a layer's slice of the stacked states, LSTM's
// c row inside y or its gradient) goes through a fresh buffer.
constexpr uintptr_t kRnnCudnnAlignment = 256;
bool rnn_cudnn_aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kRnnCudnnAlignment == 0; }

// The `bytes` at p (nullptr: none), or a fresh aligned copy of them kept alive by `holder`.
const void* rnn_cudnn_in(const void* p, size_t bytes, Tensor& holder, DType dtype, Device device) {
  if (!p || rnn_cudnn_aligned(p)) return p;
  holder = rnn_cudnn_bytes(bytes, dtype, device);
  HM_CUDA_CHECK(cudaMemcpyAsync(holder.raw_data(), p, bytes, cudaMemcpyDeviceToDevice, stream(device.index)));
  return holder.raw_data();
}
const void* rnn_cudnn_in(const Tensor& t, Tensor& holder) {
  return t.defined() ? rnn_cudnn_in(t.raw_data(), static_cast<size_t>(t.numel()) * dtype_size(t.dtype()), holder,
                                    t.dtype(), t.device())
                     : nullptr;
}
// Outputs the op allocates itself (y, the gradients) are fresh tensors, so aligned.
void* rnn_cudnn_out(const Tensor& t) {
  if (!t.defined()) return nullptr;
  check(rnn_cudnn_aligned(t.raw_data()), "rnn_cudnn", "output {} is not {}-byte aligned", t.desc(), kRnnCudnnAlignment);
  return t.raw_data();
}

RnnCudnnKey rnn_cudnn_key(int device, RnnCell cell, DType dtype, int64_t T, int64_t B, int64_t in, int64_t H, bool bias,
                          bool tf32) {
  return {device, static_cast<int>(cell), static_cast<int>(dtype), T, B, in, H, bias, tf32};
}

RnnCudnnState rnn_cudnn_forward(RnnCell cell, const Tensor& x, const Tensor& w_ih, const Tensor& b_ih,
                                const Tensor& w_hh, const Tensor& b_hh, const Tensor& h0, const Tensor& c0,
                                const Tensor& y, bool training) {
  const int device = kernel_device(Exec::Device, "rnn_cudnn_forward", {&x, &w_ih, &w_hh, &y});
  DeviceGuard guard(device);
  cudnnHandle_t handle = cudnn(device);
  const int64_t T = x.size(0), B = x.size(1), in = x.size(2), H = w_hh.size(1);
  RnnCudnnState state;
  state.bias = b_ih.defined();
  state.tf32 = allow_tf32();
  RnnCudnnPlan& p =
      rnn_cudnn_plan(handle, rnn_cudnn_key(device, cell, x.dtype(), T, B, in, H, state.bias, state.tf32), x.dtype());
  state.weight_space = rnn_cudnn_bytes(p.weight_bytes, x.dtype(), x.device());
  // Zeros first: the packing leaves any alignment padding between cuDNN's blocks defined.
  HM_CUDA_CHECK(cudaMemsetAsync(state.weight_space.raw_data(), 0, p.weight_bytes, stream(device)));
  rnn_cudnn_copy_params(handle, p, cell, state.weight_space.raw_data(), w_ih, b_ih, w_hh, b_hh, true, device);
  const size_t work_bytes = training ? p.work_training : p.work_inference;
  Tensor work = rnn_cudnn_bytes(work_bytes, x.dtype(), x.device());
  if (training) state.reserve_space = rnn_cudnn_bytes(p.reserve_training, x.dtype(), x.device());
  Tensor x_held, h0_held, c0_held;
  const void* xp = rnn_cudnn_in(x, x_held);
  const void* hx = rnn_cudnn_in(h0, h0_held);
  const void* cx = rnn_cudnn_in(c0, c0_held);
  // y's rows 0..T-1 are cuDNN's y (hy is row T-1 already); LSTM's c_{T-1} goes to a fresh buffer,
  // then to y's row T.
  const size_t state_bytes = static_cast<size_t>(B * H) * dtype_size(x.dtype());
  Tensor cy = cell == RnnCell::LSTM ? rnn_cudnn_bytes(state_bytes, x.dtype(), x.device()) : Tensor();
  HM_CUDNN_CHECK(cudnnRNNForward(
      handle, p.rnn, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
      static_cast<const int32_t*>(p.seq_lengths.raw_data()), p.x_desc, xp, p.y_desc, rnn_cudnn_out(y), p.h_desc, hx,
      nullptr, p.h_desc, cx, rnn_cudnn_out(cy), p.weight_bytes, state.weight_space.raw_data(), work_bytes,
      work.raw_data(), training ? p.reserve_training : 0, training ? state.reserve_space.raw_data() : nullptr));
  if (cy.defined())
    HM_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(y.raw_data()) + T * state_bytes, cy.raw_data(), state_bytes,
                                  cudaMemcpyDeviceToDevice, stream(device)));
  return state;
}

void rnn_cudnn_backward(RnnCell cell, const RnnCudnnState& state, const Tensor& g_y, const Tensor& x, const Tensor& h0,
                        const Tensor& c0, const Tensor& y, const Tensor& g_x, const Tensor& g_h0, const Tensor& g_c0,
                        const Tensor& g_w_ih, const Tensor& g_b_ih, const Tensor& g_w_hh, const Tensor& g_b_hh) {
  const int device = kernel_device(Exec::Device, "rnn_cudnn_backward", {&g_y, &x, &y});
  check(state.reserve_space.defined(), "rnn_cudnn_backward", "the forward ran without a reserve space (inference)");
  DeviceGuard guard(device);
  cudnnHandle_t handle = cudnn(device);
  const int64_t T = x.size(0), B = x.size(1), in = x.size(2), H = y.size(2);
  RnnCudnnPlan& p =
      rnn_cudnn_plan(handle, rnn_cudnn_key(device, cell, x.dtype(), T, B, in, H, state.bias, state.tf32), x.dtype());
  Tensor work = rnn_cudnn_bytes(p.work_training, x.dtype(), x.device());
  const int32_t* seq = static_cast<const int32_t*>(p.seq_lengths.raw_data());
  void* reserve = state.reserve_space.raw_data();
  // Backward data always runs (the weights' pass reads what it leaves in the reserve space), so
  // d x goes to scratch when not wanted. d h_n is inside g_y's row T-1 (h_n is that row), so
  // dhy is zero; LSTM's d c_n is g_y's row T.
  Tensor dx = g_x.defined() ? g_x : empty(x.shape(), {.dtype = x.dtype(), .device = x.device()});
  Tensor x_held, h0_held, c0_held, dy_held, dcy_held;
  const void* xp = rnn_cudnn_in(x, x_held);
  const void* hx = rnn_cudnn_in(h0, h0_held);
  const void* cx = rnn_cudnn_in(c0, c0_held);
  const size_t state_bytes = static_cast<size_t>(B * H) * dtype_size(x.dtype());
  const void* dy = rnn_cudnn_in(g_y.raw_data(), T * state_bytes, dy_held, x.dtype(), x.device());
  const void* dcy = cell == RnnCell::LSTM ? rnn_cudnn_in(static_cast<const char*>(g_y.raw_data()) + T * state_bytes,
                                                         state_bytes, dcy_held, x.dtype(), x.device())
                                          : nullptr;
  HM_CUDNN_CHECK(cudnnRNNBackwardData_v8(handle, p.rnn, seq, p.y_desc, rnn_cudnn_out(y), dy, p.x_desc,
                                         rnn_cudnn_out(dx), p.h_desc, hx, nullptr, rnn_cudnn_out(g_h0), p.h_desc, cx,
                                         dcy, rnn_cudnn_out(g_c0), p.weight_bytes, state.weight_space.raw_data(),
                                         p.work_training, work.raw_data(), p.reserve_training, reserve));
  if (!g_w_ih.defined()) return;
  Tensor dw = rnn_cudnn_bytes(p.weight_bytes, x.dtype(), x.device());
  HM_CUDA_CHECK(cudaMemsetAsync(dw.raw_data(), 0, p.weight_bytes, stream(device)));  // ADD mode sums into it
  HM_CUDNN_CHECK(cudnnRNNBackwardWeights_v8(handle, p.rnn, CUDNN_WGRAD_MODE_ADD, seq, p.x_desc, xp, p.h_desc, hx,
                                            p.y_desc, rnn_cudnn_out(y), p.weight_bytes, dw.raw_data(), p.work_training,
                                            work.raw_data(), p.reserve_training, reserve));
  rnn_cudnn_copy_params(handle, p, cell, dw.raw_data(), g_w_ih, g_b_ih, g_w_hh, g_b_hh, false, device);
}

// CUDA bodies only: no host twin (the route keeps CPU and emulated tensors on the own kernels).
[[maybe_unused]] const bool bound =
    (rnn_cudnn_forward_kernel.cuda = rnn_cudnn_forward, rnn_cudnn_backward_kernel.cuda = rnn_cudnn_backward, true);

}  // namespace
}  // namespace hm::cuda
