#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>

#include "norm.h"
#include "square.h"

namespace {

__global__ void sum_of_squares(const float* x, size_t n, float* out) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    s += plain_square(x[i]);
  }
  atomicAdd(out, s);
}

}  // namespace

extern "C" float plain_norm_host(const float* x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  return static_cast<float>(std::sqrt(s));
}

extern "C" int plain_cublas_major(void) {
  int major = -1;
  return cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS ? major : -1;
}

extern "C" int plain_norm_gpu(const float* x, size_t n, float* kernel_norm, float* cublas_norm) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return -1;
  float *dx = nullptr, *dsum = nullptr;
  int rc = -2;
  cublasHandle_t handle = nullptr;
  float sum = 0;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dsum, sizeof(float)) != cudaSuccess ||
      cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemset(dsum, 0, sizeof(float)) != cudaSuccess) {
    goto done;
  }
  sum_of_squares<<<64, 256>>>(dx, n, dsum);
  if (cudaMemcpy(&sum, dsum, sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) goto done;
  *kernel_norm = std::sqrt(sum);
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS ||
      cublasSnrm2(handle, static_cast<int>(n), dx, 1, cublas_norm) != CUBLAS_STATUS_SUCCESS) {
    goto done;
  }
  rc = 0;
done:
  if (handle) cublasDestroy(handle);
  cudaFree(dx);
  cudaFree(dsum);
  return rc;
}
