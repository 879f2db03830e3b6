// Uses device code of another cuda_library: needs -rdc=true and a device link.
#include "toolchains/cuda/tests/rdc/apply.h"

extern __device__ float rdc_scale(float x);
extern __device__ float rdc_offset;

#ifdef CUBRIDGE_NO_CUDA
int rdc_apply(float* x, int n) {
  for (int i = 0; i < n; ++i) {
    x[i] = rdc_scale(x[i]) + rdc_offset;
  }
  return RDC_OK;
}
#else
__global__ void rdc_apply_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = rdc_scale(x[i]) + rdc_offset;
  }
}

int rdc_apply(float* x, int n) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    return RDC_NO_DEVICE;
  }
  float* d = nullptr;
  size_t bytes = sizeof(float) * static_cast<size_t>(n);
  if (cudaMalloc(&d, bytes) != cudaSuccess) {
    return RDC_CUDA_ERROR;
  }
  bool ok = cudaMemcpy(d, x, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  if (ok) {
    int blocks = (n + 255) / 256;
    // clang-format off
    rdc_apply_kernel<<<blocks, 256>>>(d, n);
    // clang-format on
    ok = cudaGetLastError() == cudaSuccess &&
         cudaMemcpy(x, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
  }
  cudaFree(d);
  return ok ? RDC_OK : RDC_CUDA_ERROR;
}
#endif
