// cubridge's CUDA-less cuda_runtime.h (--@cubridge//toolchains/cuda:mode=none):
// the runtime API plus the CUDA C++ keywords and device intrinsics as no-ops,
// so that .cu files, kernels included, compile as plain C++ for the CPU
// backend. Kernel launches (<<<...>>>) still need `#if !defined(CUBRIDGE_NO_CUDA)`
// around them (cubridge keeps that in one launch helper).
#ifndef CUBRIDGE_NONE_CUDA_RUNTIME_H_
#define CUBRIDGE_NONE_CUDA_RUNTIME_H_

#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"

#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...)

#ifdef __cplusplus
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};
struct uint3 {
  unsigned int x = 0, y = 0, z = 0;
};
// Never read at run time: kernel bodies are compiled but never launched.
static constexpr uint3 threadIdx{};
static constexpr uint3 blockIdx{};
static constexpr dim3 blockDim{};
static constexpr dim3 gridDim{};

// Device intrinsics the kernels use; never called (no launches).
struct int4 {
  int x, y, z, w;
};
inline void __syncthreads() {}
inline void __threadfence() {}
inline void __threadfence_system() {}
template <class T>
T atomicAdd(T* p, T v) {
  T old = *p;
  *p = old + v;
  return old;
}
template <class T>
T __ldcs(const T* p) {
  return *p;
}
template <class T>
T __shfl_down_sync(unsigned, T v, int) {
  return v;
}

// No device: no blocks are resident anywhere.
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, Kernel, int, size_t) {
  *blocks = 0;
  return cudaErrorNoDevice;
}

// The typed overloads that NVIDIA's cuda_runtime.h adds for C++.
template <class T>
cudaError_t cudaMalloc(T** ptr, size_t size) {
  return ::cudaMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return ::cudaMallocHost(reinterpret_cast<void**>(ptr), size);
}
template <class T>
cudaError_t cudaMallocManaged(T** ptr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
cudaError_t cudaHostGetDevicePointer(T** dev, void* host, unsigned int flags) {
  return ::cudaHostGetDevicePointer(reinterpret_cast<void**>(dev), host, flags);
}
#endif

#endif  // CUBRIDGE_NONE_CUDA_RUNTIME_H_
