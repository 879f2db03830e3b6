// Smallest cuda_library: a kernel plus a host function, to test the rule itself.
#include <cuda_runtime.h>

__global__ void smoke_kernel(int* out) { *out = 42; }

extern "C" int smoke_device_count(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" int smoke_run(void) {
  int* d = nullptr;
  int h = 0;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return -1;
#if !defined(CUBRIDGE_NO_CUDA)  // mode=none: cudaMalloc already failed
  smoke_kernel<<<1, 1>>>(d);
#endif
  cudaError_t err = cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err == cudaSuccess ? h : -1;
}
