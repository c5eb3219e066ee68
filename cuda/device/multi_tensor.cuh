// Multi-tensor apply: one launch runs an elementwise functor over chunks of many tensors, so
// an optimizer step over a model's parameters is a few launches, not one per parameter.
//
// The host cuts every tensor into chunks and fills a MultiTensorArgs passed by value in the
// kernel's arguments (under the 4 KiB limit): the tensors' pointers and sizes, and a block
// table of (tensor, chunk) pairs, one CUDA block per entry. When either table is full it
// launches and starts a new one; a tensor cut across two launches continues in the second.
// The host twin walks the same block table in a loop and runs the same functor, with the
// per-block coefficients computed once per block as each device thread does.
#pragma once
#include <algorithm>
#include <array>
#include <vector>

#include "harmonic/cuda/device/launch.cuh"

namespace hm::cuda {

constexpr int kMultiTensorMaxTensors = 24;
constexpr int kMultiTensorMaxBlocks = 320;
constexpr int64_t kMultiTensorChunk = 65536;  // elements per block

template <int Depth>
struct MultiTensorArgs {
  void* ptr[Depth][kMultiTensorMaxTensors];        // list l's tensor k
  int64_t numel[kMultiTensorMaxTensors];
  int64_t chunk_base[kMultiTensorMaxTensors];      // index of tensor k's chunk 0 among all chunks of the call
  int32_t slot[kMultiTensorMaxTensors];            // the caller's tag of tensor k (capturable: its step slot)
  int32_t chunk[kMultiTensorMaxBlocks];            // block b: chunk `chunk[b]` of tensor `tensor[b]`
  uint8_t tensor[kMultiTensorMaxBlocks];
  int64_t chunk_size;
  int32_t blocks;

  HM_HD int64_t chunks_of(int k) const { return numel[k] == 0 ? 1 : (numel[k] + chunk_size - 1) / chunk_size; }
  HM_HD bool last_chunk(int b) const { return chunk[b] + 1 == chunks_of(tensor[b]); }
};

// Block b's elements [begin, end) of tensor tensor[b].
template <int Depth, class Op>
__global__ void __launch_bounds__(kThreads) multi_tensor_kernel(MultiTensorArgs<Depth> a, Op op) {
  const int k = a.tensor[blockIdx.x];
  const int64_t begin = int64_t{a.chunk[blockIdx.x]} * a.chunk_size;
  const int64_t end = begin + a.chunk_size < a.numel[k] ? begin + a.chunk_size : a.numel[k];
  const auto c = op.coeffs(a, k);
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) op(a, k, i, c);
}

// Cuts `lists` (Depth lists of equal length, the same numel per entry) into chunks of
// chunk_size elements and calls batch(args) for each filled args, in order. slots: a tag per
// entry, or empty. A zero-size tensor gets one empty chunk (so it still ends in some batch).
template <int Depth, class Batch>
void multi_tensor_batches(const std::array<const std::vector<Tensor>*, Depth>& lists, const std::vector<int32_t>& slots,
                          int64_t chunk_size, Batch&& batch) {
  const std::vector<Tensor>& first = *lists[0];
  MultiTensorArgs<Depth> a{};
  a.chunk_size = chunk_size;
  int tensors = 0;
  int64_t chunk_base = 0;
  for (size_t e = 0; e < first.size(); ++e) {
    int k = tensors++;
    for (int l = 0; l < Depth; ++l) a.ptr[l][k] = (*lists[l])[e].raw_data();
    a.numel[k] = first[e].numel();
    a.chunk_base[k] = chunk_base;
    a.slot[k] = slots.empty() ? 0 : slots[e];
    const int64_t chunks = a.chunks_of(k);
    chunk_base += chunks;
    for (int64_t c = 0; c < chunks; ++c) {
      a.tensor[a.blocks] = static_cast<uint8_t>(k);
      a.chunk[a.blocks] = static_cast<int32_t>(c);
      ++a.blocks;
      if (a.blocks < kMultiTensorMaxBlocks && !(tensors == kMultiTensorMaxTensors && c + 1 == chunks)) continue;
      batch(a);
      // The next args start empty, or with this tensor when chunks of it remain.
      MultiTensorArgs<Depth> next{};
      next.chunk_size = chunk_size;
      tensors = 0;
      if (c + 1 < chunks) {
        for (int l = 0; l < Depth; ++l) next.ptr[l][0] = a.ptr[l][k];
        next.numel[0] = a.numel[k];
        next.chunk_base[0] = a.chunk_base[k];
        next.slot[0] = a.slot[k];
        tensors = 1;
        k = 0;
      }
      a = next;
    }
  }
  if (a.blocks > 0) batch(a);
}

// Runs op over one batch: a multi_tensor_kernel launch, or the same loop on the host.
template <int Depth, class Op>
void multi_tensor_launch(Exec exec, int device, const MultiTensorArgs<Depth>& a, const Op& op) {
  static_assert(sizeof(MultiTensorArgs<Depth>) + sizeof(Op) <= 4000, "kernel arguments are limited to 4 KiB");
  static_assert(std::is_trivially_copyable_v<Op>, "kernel functors are copied to the device");
  if (exec == Exec::Host) {
    for (int b = 0; b < a.blocks; ++b) {
      const int k = a.tensor[b];
      const int64_t begin = int64_t{a.chunk[b]} * a.chunk_size;
      const int64_t end = std::min(begin + a.chunk_size, a.numel[k]);
      const auto c = op.coeffs(a, k);
      for (int64_t i = begin; i < end; ++i) op(a, k, i, c);
    }
    return;
  }
  DeviceGuard guard(device);
  multi_tensor_kernel<Depth, Op><<<a.blocks, kThreads, 0, stream(device)>>>(a, op);
  HM_CUDA_CHECK_LAUNCH();
}

}  // namespace hm::cuda
