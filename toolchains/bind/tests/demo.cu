// The demo kernels of the binding tests (axpy.bind, to_int.bind, iota.bind):
// one loop per kernel, run by CUDA threads on the GPU or by the host.
#include <cuda_runtime.h>
#include <stdint.h>

#include "axpy.bind.h"
#include "iota.bind.h"
#include "to_int.bind.h"

namespace {

// One element of each kernel: functors, so that the GPU and the host run the same code.
template <class T>
struct Axpy {
  double a;
  const T* x;
  T* y;
  __host__ __device__ void operator()(int64_t i) const { y[i] = static_cast<T>(a) * x[i] + y[i]; }
};

template <class T>
struct ToInt {
  double scale;
  const T* x;
  int32_t* q;
  __host__ __device__ void operator()(int64_t i) const {
    q[i] = static_cast<int32_t>(x[i] * static_cast<T>(scale));
  }
};

struct Iota {
  int64_t start;
  int64_t* r;
  __host__ __device__ void operator()(int64_t i) const { r[i] = start + i; }
};

#if !defined(CUBRIDGE_NO_CUDA)
template <class F>
__global__ void each(int64_t n, F f) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
#endif

// f(i) for i in [0, n): on the launch's device and stream, or on the host.
template <class F>
cubridge_status run(const cubridge_launch* l, int64_t n, const char* what, F f) {
  if (l->device < 0) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return CUBRIDGE_OK;
  }
#if defined(CUBRIDGE_NO_CUDA)
  return cubridge_launch_fail(l, CUBRIDGE_ERR_NO_DEVICE, "%s: built without CUDA", what);
#else
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  // clang-format off
  each<<<blocks, 256, 0, reinterpret_cast<cudaStream_t>(l->stream)>>>(n, f);
  // clang-format on
  return cubridge_launch_cuda(l, cudaGetLastError(), what);
#endif
}

}  // namespace

extern "C" cubridge_status demo_axpy(const cubridge_launch* l, const cubridge_view* x,
                                     const cubridge_view* y, double a, int64_t n) {
  if (x->dtype == CUBRIDGE_FLOAT32) {
    return run(l, n, "axpy",
               Axpy<float>{a, static_cast<const float*>(x->data), static_cast<float*>(y->data)});
  }
  return run(l, n, "axpy",
             Axpy<double>{a, static_cast<const double*>(x->data), static_cast<double*>(y->data)});
}

extern "C" cubridge_status demo_to_int(const cubridge_launch* l, const cubridge_view* x,
                                       double scale, const cubridge_view* q, int64_t m, int64_t n) {
  int32_t* qs = static_cast<int32_t*>(q->data);
  if (x->dtype == CUBRIDGE_FLOAT32) {
    return run(l, m * n, "to_int", ToInt<float>{scale, static_cast<const float*>(x->data), qs});
  }
  return run(l, m * n, "to_int", ToInt<double>{scale, static_cast<const double*>(x->data), qs});
}

extern "C" cubridge_status demo_iota(const cubridge_launch* l, int64_t n, int64_t start,
                                     const cubridge_view* r) {
  return run(l, n, "iota", Iota{start, static_cast<int64_t*>(r->data)});
}
