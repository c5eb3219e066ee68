// CUDA embedding (the formulas of ops/cpu/embedding.cpp): a gather; backward scatters with
// atomicAdd on the device (the summation order of repeated indices is not fixed there; the host
// twin adds in index order).
#include "harmonic/cuda/device/index_checks.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/embedding_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
struct EmbeddingGather {  // out (n, D) = weight rows at idx (0 for an index outside the table)
  const T* w;
  const int64_t* idx;
  T* out;
  int64_t dim, vocab;
  HM_HD void operator()(int64_t k) const {
    const int64_t v = idx[k / dim];
    out[k] = index_in_range(v, vocab) ? w[v * dim + k % dim] : T(0);
  }
};

template <Exec E>
void embedding_on(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  const int device = kernel_device(E, "embedding", {&weight, &indices, &out});
  const int64_t vocab = weight.size(0), dim = weight.size(1), n = indices.numel();
  if (n == 0) return;
  const int64_t* idx = static_cast<const int64_t*>(indices.raw_data());
  // Validated first, like the CPU (at once, or at the host's next wait: cuda/device/index_checks.cuh).
  check_index_values(E, device, indices, vocab, std::nullopt, "embedding", [vocab](int64_t position, int64_t v) {
    return fmt::format("index {} at position {} is out of range for {} rows", v, position, vocab);
  });
  dispatch_float(weight.dtype(), "embedding", [&]<class T>() {
    for_each_index(
        E, device, n * dim,
        EmbeddingGather<T>{static_cast<const T*>(weight.raw_data()), idx, static_cast<T*>(out.raw_data()), dim, vocab});
  });
}

template <class T>
struct EmbeddingScatter {  // dweight[idx[k / D], k % D] += g[k], skipping padding_idx
  const T* g;
  const int64_t* idx;
  T* dw;
  int64_t dim, vocab, padding_idx;
  HM_HD void operator()(int64_t k) const {
    const int64_t v = idx[k / dim];
    if (v == padding_idx || !index_in_range(v, vocab)) return;
#ifdef __CUDA_ARCH__
    atomicAdd(dw + v * dim + k % dim, g[k]);
#else
    dw[v * dim + k % dim] += g[k];
#endif
  }
};

template <Exec E>
void embedding_backward_on(const Tensor& g, const Tensor& indices, int64_t padding_idx, const Tensor& dweight) {
  const int device = kernel_device(E, "embedding_backward", {&g, &indices, &dweight});
  const int64_t vocab = dweight.size(0), dim = dweight.size(1), n = indices.numel();
  fill_kernel(dweight.device(), dweight, 0.0);
  dispatch_float(dweight.dtype(), "embedding_backward", [&]<class T>() {
    for_each_index(
        E, device, n * dim,
        EmbeddingScatter<T>{static_cast<const T*>(g.raw_data()), static_cast<const int64_t*>(indices.raw_data()),
                            static_cast<T*>(dweight.raw_data()), dim, vocab, padding_idx});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(embedding_kernel, embedding_on<Exec::Device>, embedding_on<Exec::Host>) &&
    bind_cuda(embedding_backward_kernel, embedding_backward_on<Exec::Device>, embedding_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
