// The downstream module's own kernel, compiled by cubridge's cuda_library.
#include <cuda_runtime.h>

#include "saxpy.h"

namespace {

__host__ __device__ inline float saxpy_one(float a, float x, float y) { return a * x + y; }

__global__ void saxpy_kernel(float a, const float* x, float* y, size_t n) {
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = saxpy_one(a, x[i], y[i]);
}

bool have_gpu() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

int saxpy_gpu(float a, const float* x, float* y, size_t n) {
#if defined(CUBRIDGE_NO_CUDA)  // built with --@cubridge//toolchains/cuda:mode=none
  (void)a, (void)x, (void)y, (void)n;
  return -1;
#else
  float* dx = nullptr;
  float* dy = nullptr;
  size_t bytes = n * sizeof(float);
  int rc = -1;
  if (cudaMalloc(&dx, bytes) == cudaSuccess && cudaMalloc(&dy, bytes) == cudaSuccess &&
      cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
      cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice) == cudaSuccess) {
    unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    // Older clang-format splits a kernel launch inside #if into "> > >".
    // clang-format off
    saxpy_kernel<<<blocks, 256>>>(a, dx, dy, n);
    // clang-format on
    if (cudaGetLastError() == cudaSuccess &&
        cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost) == cudaSuccess) {
      rc = 0;
    }
  }
  cudaFree(dx);
  cudaFree(dy);
  return rc;
#endif
}

}  // namespace

extern "C" int saxpy(float a, const float* x, float* y, size_t n) {
  if (n == 0) return 0;
  if (have_gpu()) return saxpy_gpu(a, x, y, n);
  for (size_t i = 0; i < n; ++i) y[i] = saxpy_one(a, x[i], y[i]);
  return 0;
}

extern "C" const char* saxpy_backend(void) { return have_gpu() ? "cuda" : "cpu"; }
