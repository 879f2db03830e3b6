// Single-pass sum and dot on the GPU: 16-byte vector loads, per-thread
// accumulators, a per-block partial, and the last block to finish adds the
// partials in block order. One launch, no size query, no temporary storage
// beyond a fixed scratch block; deterministic run to run (every element's
// place in the sum depends only on n, the grid and the pointers' alignment).
//
// Why not CUB: its BlockReduce for the block sums doubled the kernel's
// registers (32 -> 64 for f32: half the blocks per SM, so the one-wave grid
// ran in two) and cut f32 sum 4e8 from 4305 to 3508 GB/s on the H200 host;
// DeviceReduce's TransformReduce with a cast (float -> double) gives up vector
// loads, and two kernels plus a size query cost more at small n. Measured on
// an H100 (bench/micro/shapes.cu), f32 sum 4e8: 2585 GB/s (CUB) vs 3103; 1e7:
// 1748 vs 2033; f64 sum 4e8: 3089 vs 3078-3088 (even).
#ifndef CUBRIDGE_SRC_REDUCE_KERNEL_CUH_
#define CUBRIDGE_SRC_REDUCE_KERNEL_CUH_

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>

#include "launch.cuh"
#include "ops.cuh"
#include "tuning.h"

namespace cubridge {

template <class T, int V>
struct alignas(sizeof(T) * V) RedVec {
  T v[V];
};

// One term of the reduction: x[i] (sum) or x[i] * y[i] (dot), as AccOf<T>.
template <class T, bool kDot>
CB_HD AccOf<T> red_term(T x, T y) {
  if constexpr (kDot) {
    return acc_mul(x, y);
  } else {
    (void)y;
    return ToAcc<T>{}(x);
  }
}

// Streaming load (evict-first): the input is read once. Measured on an H100,
// f64 sum 4e8: 3115 GB/s against 3087 with plain loads; f32 even.
template <class W>
__device__ __forceinline__ W load_once(const W* p) {
  if constexpr (sizeof(W) == 16) {
    int4 v = __ldcs(reinterpret_cast<const int4*>(p));
    W w;
    memcpy(&w, &v, sizeof(W));
    return w;
  } else {
    return *p;
  }
}

template <class Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
  for (int off = 16; off > 0; off /= 2) v = AccAdd<Acc>{}(v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

// Sum of v over the block, in a fixed order; valid in thread 0.
template <class Acc>
__device__ __forceinline__ Acc block_sum(Acc v, Acc* warps) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  Acc r = warps[0];
  if (threadIdx.x == 0) {
    for (int w = 1; w < kRedThreads / 32; ++w) r = AccAdd<Acc>{}(r, warps[w]);
  }
  __syncthreads();  // warps[] may be reused
  return r;
}

// Where the result goes: *value, then `seq` into *done once the value is
// visible to the host (both in mapped pinned memory), so the host can spin on
// *done instead of waiting for the kernel to retire (reduce.cu).
template <class Acc>
struct RedResult {
  Acc* value;
  unsigned* done;
  unsigned seq;
};

template <class Acc>
__device__ __forceinline__ void publish(RedResult<Acc> r, Acc v) {
  *r.value = v;
  __threadfence_system();  // the value reaches the host before the flag
  *static_cast<volatile unsigned*>(r.done) = r.seq;
}

// Reduces [0, n): vectors of V elements over [head, head + nvec*V) (the
// pointers are 16-byte aligned there), scalars before and after. `count`
// must be 0 at launch; the last block resets it. y is unused for sum.
template <class T, bool kDot, int V>
__global__ void __launch_bounds__(kRedThreads)
    reduce_kernel(const T* x, const T* y, size_t n, size_t head, size_t nvec, unsigned* count,
                  AccOf<T>* partial, RedResult<AccOf<T>> result) {
  using Acc = AccOf<T>;
  using W = RedVec<T, V>;
  AccAdd<Acc> add;
  Acc acc[kRedIlp];
#pragma unroll
  for (int j = 0; j < kRedIlp; ++j) acc[j] = Acc(0);
  const size_t gid = static_cast<size_t>(blockIdx.x) * kRedThreads + threadIdx.x;
  const size_t tail_begin = head + nvec * V;
  if (gid < head) acc[0] = red_term<T, kDot>(x[gid], kDot ? y[gid] : x[gid]);
  if (gid < n - tail_begin) {
    size_t i = tail_begin + gid;
    acc[1] = red_term<T, kDot>(x[i], kDot ? y[i] : x[i]);
  }
  const W* vx = reinterpret_cast<const W*>(x + head);
  const W* vy = reinterpret_cast<const W*>(kDot ? y + head : x + head);
  const size_t stride = static_cast<size_t>(gridDim.x) * kRedThreads * kRedIlp;
  for (size_t base = static_cast<size_t>(blockIdx.x) * kRedThreads * kRedIlp + threadIdx.x;
       base < nvec; base += stride) {
    W a[kRedIlp], b[kRedIlp];
#pragma unroll
    for (int j = 0; j < kRedIlp; ++j) {  // every load issued before the first add
      size_t i = base + static_cast<size_t>(j) * kRedThreads;
      if (i < nvec) {
        a[j] = load_once(vx + i);
        if constexpr (kDot) b[j] = load_once(vy + i);
      }
    }
#pragma unroll
    for (int j = 0; j < kRedIlp; ++j) {
      size_t i = base + static_cast<size_t>(j) * kRedThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          acc[j] = add(acc[j], red_term<T, kDot>(a[j].v[k], kDot ? b[j].v[k] : a[j].v[k]));
        }
      }
    }
  }
  Acc t = acc[0];
#pragma unroll
  for (int j = 1; j < kRedIlp; ++j) t = add(t, acc[j]);

  // Warp shuffles, then the warps in order: deterministic.
  __shared__ Acc warps[kRedThreads / 32];
  __shared__ bool last;
  t = block_sum(t, warps);
  if (gridDim.x == 1) {  // small n: no partials, no counter
    if (threadIdx.x == 0) publish(result, t);
    return;
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = t;
    __threadfence();  // the partial is visible before the count says so
    last = atomicAdd(count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  // The last block: partials in block order (thread k takes k, k+256, ...).
  Acc s = Acc(0);
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kRedThreads) {
    s = add(s, static_cast<volatile Acc*>(partial)[i]);
  }
  s = block_sum(s, warps);
  if (threadIdx.x == 0) {
    *count = 0;  // ready for the next launch on this scratch
    publish(result, s);
  }
}

// Elements of x before a 16-byte boundary, if y (when given) reaches one at
// the same element; else SIZE_MAX (no vector path).
template <class T>
size_t red_vector_head(const T* x, const T* y) {
  uintptr_t px = reinterpret_cast<uintptr_t>(x);
  if (px % sizeof(T) != 0) return SIZE_MAX;
  size_t head = ((16 - px % 16) % 16) / sizeof(T);
  if (y != nullptr && (reinterpret_cast<uintptr_t>(y) + head * sizeof(T)) % 16 != 0) {
    return SIZE_MAX;
  }
  return head;
}

// Enqueues the reduction of n > 0 elements on `stream`; the result lands in
// *result.value, then result.seq in *result.done (device-visible memory).
// `scratch` is kRedScratchBytes of device memory whose first word is 0.
template <class T, bool kDot>
cudaError_t launch_reduce(const T* x, const T* y, size_t n, void* scratch,
                          RedResult<AccOf<T>> result, int device, cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T) > 0 ? static_cast<int>(16 / sizeof(T)) : 1;
  unsigned* count = static_cast<unsigned*>(scratch);
  auto* partial = reinterpret_cast<AccOf<T>*>(static_cast<char*>(scratch) + 256);
  size_t head = red_vector_head(x, kDot ? y : nullptr);
  const bool vec = V > 1 && head != SIZE_MAX && head <= n;
  const size_t v = vec ? V : 1;
  if (!vec) head = 0;
  const size_t nvec = (n - head) / v;
  // A thread per kRedIlp vectors, in at most one full wave of resident blocks
  // (grid_for): a grid larger than the kernel's occupancy (its registers
  // decide) runs a partial last wave; f64 dot took 66 registers, 3 blocks per
  // SM against the 8 asked. The scalar head and tail (fewer than V elements
  // each) need head, tail threads, which one block has.
  static_assert(kRedThreads == kThreads, "grid_for and resident_blocks_on count kThreads blocks");
  const size_t threads = (nvec + kRedIlp - 1) / kRedIlp;
  auto grid = [&](int resident) {
    const size_t wave = grid_for(threads, device, std::min(kRedBlocksPerSm, resident));
    return std::min<size_t>(wave, kRedMaxBlocks);
  };
  if (vec) {
    constexpr auto kernel = reduce_kernel<T, kDot, V>;
    return launch(kernel, grid(resident_blocks_on<kernel>(device)), kRedThreads, stream, x, y, n,
                  head, nvec, count, partial, result);
  }
  constexpr auto kernel = reduce_kernel<T, kDot, 1>;
  return launch(kernel, grid(resident_blocks_on<kernel>(device)), kRedThreads, stream, x, y, n,
                size_t(0), n, count, partial, result);
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_REDUCE_KERNEL_CUH_
