// The elementwise kernels: out[i] = op(a[i], b[i]) on the GPU, 16-byte vector
// loads where the pointers allow, a grid-stride scalar kernel otherwise.
#ifndef CUBRIDGE_SRC_ELEMENTWISE_GPU_CUH_
#define CUBRIDGE_SRC_ELEMENTWISE_GPU_CUH_

#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

#include "launch.cuh"
#include "ops.cuh"
#include "tuning.h"

namespace cubridge {

template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};
template <int V>
struct Vec<None, V> {
  None v[V];
};

template <int V, class T>
__device__ __forceinline__ Vec<T, V> loadv(const T* p, size_t i) {
  return reinterpret_cast<const Vec<T, V>*>(p)[i];
}
template <int V>
__device__ __forceinline__ Vec<None, V> loadv(const None*, size_t) {
  return Vec<None, V>{};
}

// Vector body over [head, head + nvec*V) with 16-byte loads on pointers
// shifted by `head`, one vector per thread (tuning.h: kThreads); the first
// head + tail threads also take the scalar head and tail elements (fewer than
// V each). The grid covers every vector: no loop, and one comparison for the
// edges, because on the H200 a grid-stride loop and two edge tests per thread
// cost 0.06-0.1 us of a 9.6 us f64 add of 1e6 (bench/micro/block_sizes.py).
template <int V, class Op, class TO, class TA, class TB>
__global__ void __launch_bounds__(kThreads)
    ew_vec_kernel(Op op, TO* out, const TA* a, const TB* b, size_t n, size_t head, size_t nvec) {
  const size_t gid = static_cast<size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (gid < nvec) {
    Vec<TA, V> xa = loadv<V>(a ? a + head : a, gid);
    Vec<TB, V> xb = loadv<V>(b ? b + head : b, gid);
    Vec<TO, V> r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = op(xa.v[k], xb.v[k]);
    reinterpret_cast<Vec<TO, V>*>(out + head)[gid] = r;
  }
  const size_t tail_begin = head + nvec * V;
  if (gid < head + (n - tail_begin)) {
    const size_t i = gid < head ? gid : tail_begin + (gid - head);
    out[i] = op(load1(a, i), load1(b, i));
  }
}

template <class Op, class TO, class TA, class TB>
__global__ void __launch_bounds__(kThreads)
    ew_scalar_kernel(Op op, TO* out, const TA* a, const TB* b, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * kThreads;
  for (size_t i = static_cast<size_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    out[i] = op(load1(a, i), load1(b, i));
  }
}

// Elements before `p` reaches `align` bytes, or SIZE_MAX if it never will.
inline size_t head_to_align(const void* p, size_t elem, size_t align) {
  if (p == nullptr || elem == 0) return 0;
  uintptr_t mis = reinterpret_cast<uintptr_t>(p) % align;
  if (mis == 0) return 0;
  size_t gap = align - mis;
  return gap % elem == 0 ? gap / elem : SIZE_MAX;
}

inline bool aligned_after(const void* p, size_t elem, size_t head, size_t align) {
  if (p == nullptr || elem == 0) return true;
  return (reinterpret_cast<uintptr_t>(p) + head * elem) % align == 0;
}

// Enqueues the op on `stream`; returns the launch error (cleared).
template <class Op, class TO, class TA, class TB>
cudaError_t launch_ew(Op op, TO* out, const TA* a, const TB* b, size_t n, cudaStream_t stream,
                      int device) {
  if (n == 0) return cudaSuccess;
  constexpr int V = static_cast<int>(16 / widest<TO, TA, TB>());
  size_t head = head_to_align(out, sizeof(TO), sizeof(TO) * V);
  bool vec = V > 1 && head != SIZE_MAX && head < static_cast<size_t>(V) && head <= n &&
             aligned_after(a, size_of<TA>(), head, size_of<TA>() * V) &&
             aligned_after(b, size_of<TB>(), head, size_of<TB>() * V);
  if (vec) {
    size_t nvec = (n - head) / V;
    // Enough threads for the vectors and for the scalar head and tail.
    size_t threads = std::max<size_t>(nvec, 2 * V);
    size_t blocks = (threads + kThreads - 1) / kThreads;
    // Past the launch limit (2^38 vectors, more memory than any GPU has) the
    // grid-stride scalar kernel below takes it.
    if (blocks <= kMaxGrid) {
      return launch(ew_vec_kernel<V, Op, TO, TA, TB>, blocks, kThreads, stream, op, out, a, b, n,
                    head, nvec);
    }
  }
  const int blocks_per_sm = resident_blocks_on<ew_scalar_kernel<Op, TO, TA, TB>>(device);
  return launch(ew_scalar_kernel<Op, TO, TA, TB>, grid_for(n, device, blocks_per_sm), kThreads,
                stream, op, out, a, b, n);
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ELEMENTWISE_GPU_CUH_
