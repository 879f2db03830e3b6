// Single-pass sum, dot, min and max on the GPU: 16-byte vector loads,
// per-thread accumulators, a per-block partial, and the last block to finish
// folds the partials in block order. One launch, no size query, no temporary storage
// beyond a fixed scratch block; deterministic run to run (every element's
// place in the sum depends only on n, the grid and the pointers' alignment).
//
// Why not CUB: its BlockReduce for the block sums doubled the kernel's
// registers (32 -> 64 for f32: half the blocks per SM, so the one-wave grid
// ran in two) and cut f32 sum 4e8 from 4305 to 3508 GB/s on the H200 host;
// DeviceReduce's TransformReduce with a cast (float -> double) gives up vector
// loads, and two kernels plus a size query cost more at small n. Measured on
// an H100 (bench/micro/shapes.cu), f32 sum 4e8: 2585 GB/s (CUB) vs 3103; 1e7:
// 1748 vs 2033; f64 sum 4e8: 3089 vs 3078-3088 (even). min/max moved here from
// CUB's TransformReduce (size query, temporary storage, a stream sync) too: on
// the H200 host, f32 min to a Python number 18.3 -> 11.2 us at 1e3, 36.5 ->
// 24.7 at 1e7, 124 -> 106 at 1e8 (torch 22.7 / 38.6 / 137).
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

// What a single-pass reduction computes: term(x[i], y[i]) per element, in
// Acc, folded with combine from identity(). Sum and dot add in AccOf<T>; min
// and max pick in MinMaxOf<T>, a NaN winning (MinOp/MaxOp).
template <class T, bool kDot>
struct SumOrDot {
  using Acc = AccOf<T>;
  static constexpr bool kTwoInputs = kDot;
  CB_HD static Acc identity() { return Acc(0); }
  CB_HD static Acc term(T x, T y) { return red_term<T, kDot>(x, y); }
  CB_HD static Acc combine(Acc a, Acc b) { return AccAdd<Acc>{}(a, b); }
};

template <class T, bool kMin>
struct MinOrMax {
  using Acc = MinMaxOf<T>;
  static constexpr bool kTwoInputs = false;
  CB_HD static Acc identity() { return kMin ? min_identity<Acc>() : max_identity<Acc>(); }
  CB_HD static Acc term(T x, T) { return ToMinMax<T>{}(x); }
  CB_HD static Acc combine(Acc a, Acc b) { return kMin ? MinOp<Acc>{}(a, b) : MaxOp<Acc>{}(a, b); }
};

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

template <class R, class Acc = typename R::Acc>
__device__ __forceinline__ Acc warp_reduce(Acc v) {
  for (int off = 16; off > 0; off /= 2) v = R::combine(v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

// R's reduction of v over the block, in a fixed order; valid in thread 0.
template <class R, class Acc = typename R::Acc>
__device__ __forceinline__ Acc block_reduce(Acc v, Acc* warps) {
  v = warp_reduce<R>(v);
  if ((threadIdx.x & 31) == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  Acc r = warps[0];
  if (threadIdx.x == 0) {
    for (int w = 1; w < kRedThreads / 32; ++w) r = R::combine(r, warps[w]);
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

// Reduces [0, n) with R: vectors of V elements over [head, head + nvec*V)
// (the pointers are 16-byte aligned there), scalars before and after. `count`
// must be 0 at launch; the last block resets it. y is read only for dot.
template <class R, class T, int V>
__global__ void __launch_bounds__(kRedThreads)
    reduce_kernel(const T* x, const T* y, size_t n, size_t head, size_t nvec, unsigned* count,
                  typename R::Acc* partial, RedResult<typename R::Acc> result) {
  using Acc = typename R::Acc;
  using W = RedVec<T, V>;
  constexpr bool kTwo = R::kTwoInputs;
  Acc acc[kRedIlp];
#pragma unroll
  for (int j = 0; j < kRedIlp; ++j) acc[j] = R::identity();
  const size_t gid = static_cast<size_t>(blockIdx.x) * kRedThreads + threadIdx.x;
  const size_t tail_begin = head + nvec * V;
  if (gid < head) acc[0] = R::term(x[gid], kTwo ? y[gid] : x[gid]);
  if (gid < n - tail_begin) {
    size_t i = tail_begin + gid;
    acc[1] = R::term(x[i], kTwo ? y[i] : x[i]);
  }
  const W* vx = reinterpret_cast<const W*>(x + head);
  const W* vy = reinterpret_cast<const W*>(kTwo ? y + head : x + head);
  const size_t stride = static_cast<size_t>(gridDim.x) * kRedThreads * kRedIlp;
  for (size_t base = static_cast<size_t>(blockIdx.x) * kRedThreads * kRedIlp + threadIdx.x;
       base < nvec; base += stride) {
    W a[kRedIlp], b[kRedIlp];
#pragma unroll
    for (int j = 0; j < kRedIlp; ++j) {  // every load issued before the first combine
      size_t i = base + static_cast<size_t>(j) * kRedThreads;
      if (i < nvec) {
        a[j] = load_once(vx + i);
        if constexpr (kTwo) b[j] = load_once(vy + i);
      }
    }
#pragma unroll
    for (int j = 0; j < kRedIlp; ++j) {
      size_t i = base + static_cast<size_t>(j) * kRedThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          acc[j] = R::combine(acc[j], R::term(a[j].v[k], kTwo ? b[j].v[k] : a[j].v[k]));
        }
      }
    }
  }
  Acc t = acc[0];
#pragma unroll
  for (int j = 1; j < kRedIlp; ++j) t = R::combine(t, acc[j]);

  // Warp shuffles, then the warps in order: deterministic.
  __shared__ Acc warps[kRedThreads / 32];
  __shared__ bool last;
  t = block_reduce<R>(t, warps);
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
  Acc s = R::identity();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kRedThreads) {
    s = R::combine(s, static_cast<volatile Acc*>(partial)[i]);
  }
  s = block_reduce<R>(s, warps);
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

// Enqueues R's reduction of n > 0 elements on `stream`; the result lands in
// *result.value, then result.seq in *result.done (device-visible memory).
// `scratch` is kRedScratchBytes of device memory whose first word is 0.
template <class R, class T>
cudaError_t launch_reduce(const T* x, const T* y, size_t n, void* scratch,
                          RedResult<typename R::Acc> result, int device, cudaStream_t stream) {
  static_assert(sizeof(typename R::Acc) <= 8, "the scratch holds 8-byte partials");
  constexpr int V = 16 / sizeof(T) > 0 ? static_cast<int>(16 / sizeof(T)) : 1;
  unsigned* count = static_cast<unsigned*>(scratch);
  auto* partial = reinterpret_cast<typename R::Acc*>(static_cast<char*>(scratch) + 256);
  size_t head = red_vector_head(x, R::kTwoInputs ? y : nullptr);
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
    constexpr auto kernel = reduce_kernel<R, T, V>;
    return launch(kernel, grid(resident_blocks_on<kernel>(device)), kRedThreads, stream, x, y, n,
                  head, nvec, count, partial, result);
  }
  constexpr auto kernel = reduce_kernel<R, T, 1>;
  return launch(kernel, grid(resident_blocks_on<kernel>(device)), kRedThreads, stream, x, y, n,
                size_t(0), n, count, partial, result);
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_REDUCE_KERNEL_CUH_
