// The Euclidean norm of n floats on the host, two ways on the GPU: a kernel
// using relocatable device code from square.cu, and cuBLAS.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// 0 on success; -1 without a usable GPU (no device, no driver); -2 on a
// CUDA or cuBLAS failure.
int plain_norm_gpu(const float* x, size_t n, float* kernel_norm, float* cublas_norm);
float plain_norm_host(const float* x, size_t n);
// cuBLAS's version (cublasGetProperty): the library linked and loaded.
int plain_cublas_major(void);

#ifdef __cplusplus
}
#endif
