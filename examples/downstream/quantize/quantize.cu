// quantize: a 2-D float array to int32 (quantize.bind), on the GPU or the host.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "quantize.bind.h"

namespace {

template <class T>
__host__ __device__ inline int32_t quantize_one(T x, T scale) {
  const T r = rint(x / scale);  // ties to even, as the FPU rounds by default
  if (r != r) return 0;         // NaN
  if (r >= T(2147483647.0)) return INT32_MAX;
  if (r <= T(-2147483648.0)) return INT32_MIN;
  return static_cast<int32_t>(r);
}

#if !defined(CUBRIDGE_NO_CUDA)
template <class T>
__global__ void quantize_kernel(const T* x, T scale, int32_t* q, int64_t count) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) q[i] = quantize_one(x[i], scale);
}
#endif

template <class T>
cubridge_status run(const cubridge_launch* l, const cubridge_view* x, double scale,
                    const cubridge_view* q, int64_t count) {
  const T* xs = static_cast<const T*>(x->data);
  int32_t* qs = static_cast<int32_t*>(q->data);
  if (scale == 0) return cubridge_launch_fail(l, CUBRIDGE_ERR_INVALID_ARGUMENT, "scale is 0");
  if (l->device < 0) {
    for (int64_t i = 0; i < count; ++i) qs[i] = quantize_one(xs[i], static_cast<T>(scale));
    return CUBRIDGE_OK;
  }
#if defined(CUBRIDGE_NO_CUDA)
  return cubridge_launch_fail(l, CUBRIDGE_ERR_NO_DEVICE, "built without CUDA");
#else
  const unsigned blocks = static_cast<unsigned>((count + 255) / 256);
  // clang-format off
  quantize_kernel<T><<<blocks, 256, 0, reinterpret_cast<cudaStream_t>(l->stream)>>>(xs, static_cast<T>(scale), qs, count);
  // clang-format on
  return cubridge_launch_cuda(l, cudaGetLastError(), "quantize_kernel");
#endif
}

}  // namespace

extern "C" cubridge_status quantize_entry(const cubridge_launch* l, const cubridge_view* x,
                                          double scale, const cubridge_view* q, int64_t m,
                                          int64_t n) {
  return x->dtype == CUBRIDGE_FLOAT32 ? run<float>(l, x, scale, q, m * n)
                                      : run<double>(l, x, scale, q, m * n);
}
