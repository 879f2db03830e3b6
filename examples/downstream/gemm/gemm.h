// The gemm example's C ABI: a cuBLAS GEMM, a cuRAND fill and an rdc kernel
// behind plain C functions, used from Python (mygemm) and C++.
#ifndef GEMM_EXAMPLE_GEMM_H_
#define GEMM_EXAMPLE_GEMM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  GEMM_OK = 0,
  GEMM_NO_DEVICE = 1,     // no CUDA device: nothing ran
  GEMM_BAD_ARGUMENT = 2,  // a size < 0, a null pointer, or an unknown dtype
  GEMM_CUDA_ERROR = 3,    // the CUDA runtime failed (out of memory, ...)
  GEMM_CUBLAS_ERROR = 4,
  GEMM_CURAND_ERROR = 5,
};

enum { GEMM_F32 = 0, GEMM_F16 = 1 };

// Number of CUDA devices (0 without a GPU or driver).
int gemm_device_count(void);

// The message of a status code.
const char* gemm_status_string(int status);

// C = A @ B, row-major, on device pointers: A is m x k, B is k x n, C is m x n,
// all of `dtype` (f16 accumulates in f32, as torch and CuPy do). Asynchronous on
// the default stream; gemm_synchronize waits.
int gemm_matmul_device(int dtype, int64_t m, int64_t n, int64_t k, const void* a, const void* b,
                       void* c);

// The same for host f32 arrays (copied to the GPU and back).
int gemm_matmul_host_f32(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c);

// n uniform floats in (0, 1] from cuRAND's Philox generator with `seed`, into a
// device pointer or a host array.
int gemm_uniform_device(float* out, size_t n, uint64_t seed);
int gemm_uniform_host(float* out, size_t n, uint64_t seed);

// x[i] = scale * x[i] + shift for host f32 x, by a kernel whose scale-and-shift
// function lives in another cuda_library (rdc = True, device-linked once).
int gemm_affine_host(float* x, size_t n, float scale, float shift);

// Waits for the device's work.
int gemm_synchronize(void);

#ifdef __cplusplus
}
#endif

#endif  // GEMM_EXAMPLE_GEMM_H_
