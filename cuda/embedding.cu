// CUDA embedding (the formulas of ops/cpu/embedding.cpp): a gather; backward scatters with
// atomicAdd on the device (the summation order of repeated indices is not fixed there; the host
// twin adds in index order).
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/rows.cuh"
#include "harmonic/ops/embedding_kernels.h"

namespace hm::cuda {
namespace {

struct CountBadIndices {
  const int64_t* idx;
  int64_t vocab;
  HM_HD double operator()(int64_t i) const { return idx[i] < 0 || idx[i] >= vocab ? 1.0 : 0.0; }
};

template <class T>
struct EmbeddingGather {  // out (n, D) = weight rows at idx
  const T* w;
  const int64_t* idx;
  T* out;
  int64_t dim;
  HM_HD void operator()(int64_t k) const { out[k] = w[idx[k / dim] * dim + k % dim]; }
};

template <Exec E>
void embedding_on(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  const int device = kernel_device(E, "embedding", {&weight, &indices, &out});
  const int64_t vocab = weight.size(0), dim = weight.size(1), n = indices.numel();
  if (n == 0) return;
  const int64_t* idx = static_cast<const int64_t*>(indices.raw_data());
  // Validate first (one sync), like the CPU, so the gather never reads outside the table.
  Tensor bad = Tensor::empty({1}, DType::Float64, indices.device());
  reduce_total(E, device, n, CountBadIndices{idx, vocab}, 1.0, static_cast<double*>(bad.raw_data()));
  double nbad = 0;
  read_back(E, device, static_cast<const double*>(bad.raw_data()), &nbad, 1);
  if (nbad > 0) {
    const Tensor cpu = indices.to(Device::cpu());
    const int64_t* ci = cpu.data<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      check(ci[i] >= 0 && ci[i] < vocab, "embedding", "index {} at position {} is out of range for {} rows", ci[i], i,
            vocab);
  }
  dispatch_float(weight.dtype(), "embedding", [&]<class T>() {
    for_each_index(
        E, device, n * dim,
        EmbeddingGather<T>{static_cast<const T*>(weight.raw_data()), idx, static_cast<T*>(out.raw_data()), dim});
  });
}

template <class T>
struct EmbeddingScatter {  // dweight[idx[k / D], k % D] += g[k], skipping padding_idx
  const T* g;
  const int64_t* idx;
  T* dw;
  int64_t dim, padding_idx;
  HM_HD void operator()(int64_t k) const {
    const int64_t v = idx[k / dim];
    if (v == padding_idx) return;
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
  const int64_t dim = dweight.size(1), n = indices.numel();
  fill_kernel(dweight.device(), dweight, 0.0);
  dispatch_float(dweight.dtype(), "embedding_backward", [&]<class T>() {
    for_each_index(
        E, device, n * dim,
        EmbeddingScatter<T>{static_cast<const T*>(g.raw_data()), static_cast<const int64_t*>(indices.raw_data()),
                            static_cast<T*>(dweight.raw_data()), dim, padding_idx});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(embedding_kernel, embedding_on<Exec::Device>, embedding_on<Exec::Host>) &&
    bind_cuda(embedding_backward_kernel, embedding_backward_on<Exec::Device>, embedding_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
