// The OpenBLAS kernels under Harmonic's CPU GEMM. Debian's OpenBLAS is a DYNAMIC_ARCH build: at
// load it picks kernels by CPU model, and a model newer than its table (0.3.21 on an Intel
// Xeon of model 207) falls back to the generic Prescott (SSE3) kernels, which run the Decision
// Transformer's training step 2.8x slower than the AVX-512 ones on the same machine. When
// libharmonic loads (after OpenBLAS), it replaces that fallback with the kernels the CPU's
// instruction set runs; a user's OPENBLAS_CORETYPE is left as it is.
#pragma once
#include <string>

namespace hm {

// What Harmonic changed in OpenBLAS's own kernel choice: "" when nothing, else e.g. "SkylakeX
// kernels chosen by Harmonic (OpenBLAS did not recognise this CPU and took Prescott)".
const std::string& blas_kernel_choice();
// The OpenBLAS core whose kernels run now ("SkylakeX"); "" when the BLAS is not OpenBLAS.
std::string blas_core_in_use();

// The OpenBLAS core whose kernels a CPU with these instruction sets runs best among those a
// DYNAMIC_ARCH build carries: "SkylakeX" (AVX-512 F/CD/DQ/BW/VL), "Haswell" (AVX2 + FMA),
// "SandyBridge" (AVX), else "" (nothing better than the generic kernels).
std::string blas_core_for(bool avx512, bool avx2_fma, bool avx);
std::string blas_core_for_this_cpu();  // blas_core_for this CPU's instruction sets ("" off x86-64)

}  // namespace hm
