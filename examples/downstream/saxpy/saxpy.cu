// The downstream module's own kernel, compiled by cubridge's cuda_library and
// bound by its kernel_binding (saxpy.bind): this file is all the C there is.
#include <cuda_runtime.h>
#include <stdint.h>

#include "saxpy.bind.h"

namespace {

template <class T>
__host__ __device__ inline void saxpy_one(int64_t i, T a, const T* x, T* y) {
  y[i] = a * x[i] + y[i];
}

#if !defined(CUBRIDGE_NO_CUDA)  // built with --@rules_cuda//cuda:enable=false
template <class T>
__global__ void saxpy_kernel(T a, const T* x, T* y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) saxpy_one(i, a, x, y);
}
#endif

template <class T>
cubridge_status run(const cubridge_launch* l, const cubridge_view* x, const cubridge_view* y,
                    double a, int64_t n) {
  const T* xs = static_cast<const T*>(x->data);
  T* ys = static_cast<T*>(y->data);
  if (l->device < 0) {  // host arrays: the CPU backend, or a kernel declared `host cpu`
    for (int64_t i = 0; i < n; ++i) saxpy_one(i, static_cast<T>(a), xs, ys);
    return CUBRIDGE_OK;
  }
#if defined(CUBRIDGE_NO_CUDA)
  return cubridge_launch_fail(l, CUBRIDGE_ERR_NO_DEVICE, "built without CUDA");
#else
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  // Older clang-format splits a kernel launch inside #if into "> > >".
  // clang-format off
  saxpy_kernel<T><<<blocks, 256, 0, reinterpret_cast<cudaStream_t>(l->stream)>>>(static_cast<T>(a), xs, ys, n);
  // clang-format on
  return cubridge_launch_cuda(l, cudaGetLastError(), "saxpy_kernel");
#endif
}

}  // namespace

// The entry point saxpy.bind names: views of x and y (checked: float32 or
// float64, one dtype, n elements each), a, n; on l->device and l->stream.
extern "C" cubridge_status saxpy_entry(const cubridge_launch* l, const cubridge_view* x,
                                       const cubridge_view* y, double a, int64_t n) {
  return x->dtype == CUBRIDGE_FLOAT32 ? run<float>(l, x, y, a, n) : run<double>(l, x, y, a, n);
}
