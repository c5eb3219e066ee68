// Marks functions that both the C++ compiler and nvcc compile, so one scalar functor serves
// the CPU loop and the CUDA kernel.
#pragma once
#ifdef __CUDACC__
#define HM_HD __host__ __device__ __forceinline__
#else
#define HM_HD inline
#endif
