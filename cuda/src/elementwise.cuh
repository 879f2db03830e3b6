// The elementwise machinery: out[i] = op(a[i], b[i]) where either input may be
// absent (None). One functor, three launchers: CPU threads, a GPU kernel, and
// the pipelined host path on the GPU backend.
#ifndef CUBRIDGE_SRC_ELEMENTWISE_CUH_
#define CUBRIDGE_SRC_ELEMENTWISE_CUH_

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <atomic>

#include "backend.h"
#include "cpu_pool.h"
#include "devices.h"
#include "host_pipeline.h"
#include "ops.cuh"
#include "pointers.h"
#include "status.h"

namespace cubridge {

template <class T>
constexpr size_t size_of() {
  return std::is_same<T, None>::value ? 0 : sizeof(T);
}

template <class T>
CB_HD T load1(const T* p, size_t i) {
  return p[i];
}
CB_HD None load1(const None*, size_t) { return None{}; }

// ---- CPU ------------------------------------------------------------------

constexpr size_t kCpuGrain = 1 << 15;  // below this many elements: one thread

template <class Op, class TO, class TA, class TB>
void run_cpu(Op op, TO* out, const TA* a, const TB* b, size_t n) {
  auto body = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = op(load1(a, i), load1(b, i));
  };
  parallel_for(n, kCpuGrain, body);
}

// ---- GPU kernels ------------------------------------------------------------

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

constexpr int kThreads = 256;

// Vector body over [head, head + nvec*V) with 16-byte loads on pointers
// shifted by `head`; threads also take the scalar head and tail elements.
// One 16-byte vector per thread and one block per 256 vectors (no persistent
// grid-stride loop): measured on an H100 (bench/micro/shapes.cu) this streams
// at ~3075 GB/s at n = 4e8 against ~2910 for a one-wave grid-stride grid with
// 4 vectors per thread, and is as fast at 1e6 and 1e7. Blocks loop only when
// the grid would pass the launch limit.
template <int V, class Op, class TO, class TA, class TB>
__global__ void __launch_bounds__(kThreads)
    ew_vec_kernel(Op op, TO* out, const TA* a, const TB* b, size_t n, size_t head, size_t nvec) {
  const size_t gid = static_cast<size_t>(blockIdx.x) * kThreads + threadIdx.x;
  // Scalar head and tail (fewer than V elements each).
  const size_t tail_begin = head + nvec * V;
  if (gid < head) out[gid] = op(load1(a, gid), load1(b, gid));
  if (gid < n - tail_begin) {
    size_t i = tail_begin + gid;
    out[i] = op(load1(a, i), load1(b, i));
  }
  TO* vo = out + head;
  const TA* va = a ? a + head : a;
  const TB* vb = b ? b + head : b;
  const size_t stride = static_cast<size_t>(gridDim.x) * kThreads;
  for (size_t i = gid; i < nvec; i += stride) {
    Vec<TA, V> xa = loadv<V>(va, i);
    Vec<TB, V> xb = loadv<V>(vb, i);
    Vec<TO, V> r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = op(xa.v[k], xb.v[k]);
    reinterpret_cast<Vec<TO, V>*>(vo)[i] = r;
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

// Launch limit of a 1-D grid (gridDim.x), rounded down.
constexpr size_t kMaxGrid = 1u << 30;

// Blocks of `kernel` that fit on one SM of the current device.
template <class Kernel>
int resident_blocks(Kernel kernel) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess ||
      blocks <= 0) {
    (void)cudaGetLastError();
    blocks = 4;
  }
  return blocks;
}

// Enough blocks for `work_items` threads, at most one full wave of resident
// blocks: every block then loops over an equal share (grid-stride), so no
// partial last wave idles SMs at the end.
inline unsigned grid_for(size_t work_items, int device, int blocks_per_sm) {
  size_t blocks = (work_items + kThreads - 1) / kThreads;
  size_t cap = static_cast<size_t>(sm_count(device)) * static_cast<size_t>(blocks_per_sm);
  blocks = std::max<size_t>(1, std::min(blocks, cap));
  return static_cast<unsigned>(blocks);
}

// Enqueues the op on `stream`; returns the launch error (cleared).
template <class Op, class TO, class TA, class TB>
cudaError_t launch_ew(Op op, TO* out, const TA* a, const TB* b, size_t n, cudaStream_t stream,
                      int device) {
  if (n == 0) return cudaSuccess;
  constexpr size_t kMax = std::max(size_of<TO>(), std::max(size_of<TA>(), size_of<TB>()));
  constexpr int V = static_cast<int>(16 / kMax);
  size_t head = head_to_align(out, sizeof(TO), sizeof(TO) * V);
  bool vec = V > 1 && head != SIZE_MAX && head < static_cast<size_t>(V) && head <= n &&
             aligned_after(a, size_of<TA>(), head, size_of<TA>() * V) &&
             aligned_after(b, size_of<TB>(), head, size_of<TB>() * V);
#if defined(CUBRIDGE_NO_CUDA)  // built without CUDA (mode=none): nothing to launch on
  (void)vec;
  (void)stream;
  (void)device;
  return cudaErrorNoDevice;
#else
  // clang-format 14 splits <<< >>> inside #if:
  // clang-format off
  if (vec) {
    size_t nvec = (n - head) / V;
    // Enough threads for the vectors and for the scalar head and tail.
    size_t threads = std::max<size_t>(nvec, 2 * V);
    size_t blocks = std::min<size_t>((threads + kThreads - 1) / kThreads, kMaxGrid);
    ew_vec_kernel<V><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(op, out, a, b, n,
                                                                             head, nvec);
  } else {
    // Occupancy per device (devices of one host may differ).
    static std::atomic<int> resident[kMaxDevices];
    const int slot = device >= 0 && device < kMaxDevices ? device : 0;
    int blocks_per_sm = resident[slot].load(std::memory_order_relaxed);
    if (blocks_per_sm <= 0) {
      blocks_per_sm = resident_blocks(ew_scalar_kernel<Op, TO, TA, TB>);
      resident[slot].store(blocks_per_sm, std::memory_order_relaxed);
    }
    unsigned grid = grid_for(n, device, blocks_per_sm);
    ew_scalar_kernel<<<grid, kThreads, 0, stream>>>(op, out, a, b, n);
  }
  // clang-format on
  return cudaGetLastError();
#endif
}

// ---- pipelined host path ----------------------------------------------------

template <class Op, class TO, class TA, class TB>
cubridge_status run_host_pipeline(const char* fn, Op op, TO* out, const TA* a, const TB* b,
                                  size_t n) {
  StagingSet* set = nullptr;
  CUBRIDGE_TRY(acquire_staging(fn, &set));
  constexpr size_t kMax = std::max(size_of<TO>(), std::max(size_of<TA>(), size_of<TB>()));
  const size_t chunk = kChunkBytes / kMax;
  size_t pend_begin[kSlots] = {0}, pend_count[kSlots] = {0};
  cudaError_t err = cudaSuccess;
  const char* what = "";

  // Waits for slot s and copies its result out.
  auto finish = [&](int s) -> cudaError_t {
    if (pend_count[s] == 0) return cudaSuccess;
    cudaError_t e = cudaEventSynchronize(set->slot[s].done);
    if (e != cudaSuccess) return e;
    parallel_memcpy(out + pend_begin[s], set->slot[s].host[2], pend_count[s] * sizeof(TO));
    pend_count[s] = 0;
    return cudaSuccess;
  };

  size_t k = 0;
  for (size_t begin = 0; begin < n && err == cudaSuccess; begin += chunk, ++k) {
    const int s = static_cast<int>(k % kSlots);
    const size_t cnt = std::min(chunk, n - begin);
    StagingSlot& sl = set->slot[s];
    what = "cudaEventSynchronize";
    if ((err = finish(s)) != cudaSuccess) break;
    what = "cudaMemcpyAsync (host to device)";
    if constexpr (size_of<TA>() != 0) {
      parallel_memcpy(sl.host[0], a + begin, cnt * sizeof(TA));
      err = cudaMemcpyAsync(sl.dev[0], sl.host[0], cnt * sizeof(TA), cudaMemcpyHostToDevice,
                            sl.stream);
      if (err != cudaSuccess) break;
    }
    if constexpr (size_of<TB>() != 0) {
      parallel_memcpy(sl.host[1], b + begin, cnt * sizeof(TB));
      err = cudaMemcpyAsync(sl.dev[1], sl.host[1], cnt * sizeof(TB), cudaMemcpyHostToDevice,
                            sl.stream);
      if (err != cudaSuccess) break;
    }
    what = "kernel launch";
    err = launch_ew(op, static_cast<TO*>(sl.dev[2]),
                    size_of<TA>() ? static_cast<const TA*>(sl.dev[0]) : nullptr,
                    size_of<TB>() ? static_cast<const TB*>(sl.dev[1]) : nullptr, cnt, sl.stream,
                    set->device);
    if (err != cudaSuccess) break;
    what = "cudaMemcpyAsync (device to host)";
    err =
        cudaMemcpyAsync(sl.host[2], sl.dev[2], cnt * sizeof(TO), cudaMemcpyDeviceToHost, sl.stream);
    if (err != cudaSuccess) break;
    what = "cudaEventRecord";
    if ((err = cudaEventRecord(sl.done, sl.stream)) != cudaSuccess) break;
    pend_begin[s] = begin;
    pend_count[s] = cnt;
  }
  // Drain in chunk order.
  for (int i = 0; i < kSlots && err == cudaSuccess; ++i) {
    what = "cudaEventSynchronize";
    err = finish(static_cast<int>((k + i) % kSlots));
  }
  if (err != cudaSuccess) {
    cubridge_status st = fail_cuda(err, fn, what);
    for (int i = 0; i < kSlots; ++i) (void)cudaStreamSynchronize(set->slot[i].stream);
    (void)cudaGetLastError();
    if (st != CUBRIDGE_ERR_CUDA_STICKY) release_staging(set);
    return st;
  }
  release_staging(set);
  return CUBRIDGE_OK;
}

// ---- dispatch on the route --------------------------------------------------

template <class Op, class TO, class TA, class TB>
cubridge_status run_elementwise(const char* fn, const Route& r, Op op, TO* out, const TA* a,
                                const TB* b, size_t n, cudaStream_t stream) {
  if (n == 0) return CUBRIDGE_OK;
  switch (r.path) {
    case Path::kCpu:
      run_cpu(op, out, a, b, n);
      return CUBRIDGE_OK;
    case Path::kDevice: {
      cudaError_t err = launch_ew(op, out, a, b, n, stream, r.device < 0 ? 0 : r.device);
      if (err != cudaSuccess) return fail_cuda(err, fn, "kernel launch");
      return CUBRIDGE_OK;
    }
    case Path::kHost:
      return run_host_pipeline(fn, op, out, a, b, n);
  }
  return fail(CUBRIDGE_ERR_INTERNAL, "%s: bad route", fn);
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ELEMENTWISE_CUH_
