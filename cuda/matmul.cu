// CUDA GEMM on cuBLAS. GemmDesc is row-major; cuBLAS is column-major, and a row-major
// (r, c) matrix with leading dim ld is the column-major (c, r) matrix with the same ld, so
//   C = op(A) op(B)  (row-major)   <=>   C^T = op(B)^T op(A)^T  (column-major)
// is one cublasGemmStridedBatchedEx with the operands swapped and the same trans flags.
// The innermost batch dim becomes cuBLAS's batch (stride 0 broadcasts), outer batch dims
// are a host loop. A bias is written into C first and accumulated onto with beta = 1.
// dtype BFloat16 is autocast's mixed GEMM: A, B bfloat16, bias float32, C float32 (or bfloat16
// with bf16_c: the bias is rounded into C first), float32 math.
// The host twin is a naive loop with the same accumulation types (float for bf16 inputs).
#include <climits>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/matmul_kernels.h"

namespace hm::cuda {
namespace {

// C[i] = bias[col] or beta * C[i] (beta 0 writes 0, never reading C) over (batch..., m, n).
template <class C, class T = compute_t<C>>
struct PrepareC {
  C* c;
  const T* bias;
  T beta;
  int64_t n;
  OffsetCalc<1> calc;
  HM_HD void operator()(int64_t i) const {
    C& dst = c[calc.get(i).v[0]];
    if (bias)
      dst = convert<C>(bias[i % n]);
    else
      dst = convert<C>(beta == T(0) ? T(0) : beta * convert<T>(dst));
  }
};

// Shape (batch..., m, n) and C's strides, for PrepareC.
std::pair<Shape, Strides> c_layout(const GemmDesc& d) {
  Shape shape = d.batch;
  Strides strides = d.batch_c;
  shape.push_back(d.m), shape.push_back(d.n);
  strides.push_back(d.ldc), strides.push_back(1);
  return {shape, strides};
}

// Element offsets of A, B, C for batch index b (outermost-first batch dims).
struct BatchOffsets {
  int64_t a = 0, b = 0, c = 0;
};
BatchOffsets batch_offsets(const GemmDesc& d, int64_t index, size_t ndims) {
  BatchOffsets o;
  for (size_t k = ndims; k-- > 0;) {
    const int64_t idx = index % d.batch[k];
    index /= d.batch[k];
    o.a += idx * d.batch_a[k], o.b += idx * d.batch_b[k], o.c += idx * d.batch_c[k];
  }
  return o;
}

// -- host twin ----------------------------------------------------------------------------

template <class In, class Out, class Acc>
void host_gemm(const GemmDesc& d) {
  const In* a = static_cast<const In*>(d.a);
  const In* b = static_cast<const In*>(d.b);
  Out* c = static_cast<Out*>(d.c);
  const int64_t batches = numel_of(d.batch);
  const Acc alpha = static_cast<Acc>(d.alpha);
  for (int64_t bi = 0; bi < batches; ++bi) {
    const BatchOffsets o = batch_offsets(d, bi, d.batch.size());
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        Acc acc = 0;
        for (int64_t p = 0; p < d.k; ++p) {
          const In x = a[o.a + (d.trans_a ? p * d.lda + i : i * d.lda + p)];
          const In y = b[o.b + (d.trans_b ? j * d.ldb + p : p * d.ldb + j)];
          acc += convert<Acc>(x) * convert<Acc>(y);
        }
        Out& dst = c[o.c + i * d.ldc + j];
        const Acc prior = d.bias        ? static_cast<Acc>(static_cast<const Acc*>(d.bias)[j])
                          : d.beta == 0 ? Acc(0)
                                        : static_cast<Acc>(d.beta) * convert<Acc>(dst);
        dst = convert<Out>(alpha * acc + prior);
      }
  }
}

// -- cuBLAS ---------------------------------------------------------------------------------

int as_int(int64_t v, const char* what) {
  check(v >= 0 && v <= INT_MAX, "gemm", "{} = {} does not fit cuBLAS's 32-bit int", what, v);
  return static_cast<int>(v);
}

void device_gemm(const GemmDesc& d, int device) {
  const bool mixed = d.dtype == DType::BFloat16;
  const bool dbl = d.dtype == DType::Float64;
  const cudaDataType in_type = mixed ? CUDA_R_16BF : dbl ? CUDA_R_64F : CUDA_R_32F;
  const cudaDataType out_type = dbl ? CUDA_R_64F : d.bf16_c ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute = dbl                        ? CUBLAS_COMPUTE_64F
                                      : (!mixed && allow_tf32()) ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                 : CUBLAS_COMPUTE_32F;
  const size_t in_size = mixed ? 2 : dbl ? 8 : 4, out_size = dbl ? 8 : d.bf16_c ? 2 : 4;
  const double alpha_d = d.alpha, beta_d = d.bias ? 1.0 : d.beta;
  const float alpha_f = static_cast<float>(alpha_d), beta_f = static_cast<float>(beta_d);
  const void* alpha = dbl ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = dbl ? static_cast<const void*>(&beta_d) : &beta_f;

  // cuBLAS's batch: the innermost batch dim; the others loop on the host.
  const size_t nd = d.batch.size();
  const int64_t inner = nd ? d.batch.back() : 1;
  const int64_t sa = nd ? d.batch_a.back() : 0, sb = nd ? d.batch_b.back() : 0, sc = nd ? d.batch_c.back() : 0;
  const int64_t outer = nd ? numel_of(d.batch) / std::max<int64_t>(inner, 1) : 1;
  const int m = as_int(d.m, "m"), n = as_int(d.n, "n"), k = as_int(d.k, "k");
  const int lda = as_int(d.lda, "lda"), ldb = as_int(d.ldb, "ldb"), ldc = as_int(d.ldc, "ldc");
  const int count = as_int(inner, "batch");
  DeviceGuard guard(device);
  cublasHandle_t h = cublas(device);
  for (int64_t ob = 0; ob < outer; ++ob) {
    const BatchOffsets o = nd > 1 ? batch_offsets(d, ob * inner, nd) : BatchOffsets{};
    const char* a = static_cast<const char*>(d.a) + o.a * in_size;
    const char* b = static_cast<const char*>(d.b) + o.b * in_size;
    char* c = static_cast<char*>(d.c) + o.c * out_size;
    HM_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        h, d.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, d.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, alpha, b, in_type,
        ldb, sb, a, in_type, lda, sa, beta, c, out_type, ldc, sc, count, compute, CUBLAS_GEMM_DEFAULT));
  }
}

template <Exec E>
void gemm_on(const GemmDesc& d) {
  check(d.dtype == DType::Float32 || d.dtype == DType::Float64 || d.dtype == DType::BFloat16, "gemm",
        "no CUDA GEMM for dtype {}", dtype_name(d.dtype));
  check(!d.bf16_c || d.dtype == DType::BFloat16, "gemm", "a bfloat16 C needs bfloat16 operands, got {}",
        dtype_name(d.dtype));
  const int64_t batches = numel_of(d.batch);
  if (batches == 0 || d.m == 0 || d.n == 0) return;
  int device = 0;
  if constexpr (E == Exec::Device) {
    cudaPointerAttributes attr{};
    HM_CUDA_CHECK(cudaPointerGetAttributes(&attr, d.c));
    device = attr.device;
  }
  const bool dbl = d.dtype == DType::Float64;
  // Bias rows (beta = 1 afterwards), or C = beta C when k = 0 (cuBLAS is not called then).
  if (d.bias || d.k == 0) {
    const auto [shape, strides] = c_layout(d);
    const OffsetCalc<1> calc = make_offset_calc<1>(shape, {&strides}, "gemm");
    const int64_t total = numel_of(shape);
    if (dbl)
      for_each_index(
          E, device, total,
          PrepareC<double>{static_cast<double*>(d.c), static_cast<const double*>(d.bias), d.beta, d.n, calc});
    else if (d.bf16_c)
      for_each_index(E, device, total,
                     PrepareC<Bf16>{static_cast<Bf16*>(d.c), static_cast<const float*>(d.bias),
                                    static_cast<float>(d.beta), d.n, calc});
    else
      for_each_index(E, device, total,
                     PrepareC<float>{static_cast<float*>(d.c), static_cast<const float*>(d.bias),
                                     static_cast<float>(d.beta), d.n, calc});
    if (d.k == 0) return;
  }
  GemmDesc prepared = d;
  if (d.bias) prepared.bias = nullptr, prepared.beta = 1.0;
  if constexpr (E == Exec::Device) {
    device_gemm(prepared, device);
  } else {
    if (d.bf16_c)
      host_gemm<Bf16, Bf16, float>(prepared);
    else if (d.dtype == DType::BFloat16)
      host_gemm<Bf16, float, float>(prepared);
    else if (dbl)
      host_gemm<double, double, double>(prepared);
    else
      host_gemm<float, float, float>(prepared);
  }
}

[[maybe_unused]] const bool bound = bind_cuda(gemm_kernel, gemm_on<Exec::Device>, gemm_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
