// Reductions: sum, dot, min, max. GPU: one pass of our own (reduce_kernel.cuh),
// deterministic run to run, on cached scratch. CPU (and host arrays on the
// GPU backend, where staging would cost as much as the CPU pass itself): fixed
// blocks reduced on the thread pool and combined in order, so results do not
// depend on the number of threads.
#include <string.h>

#include <chrono>
#include <new>
#include <type_traits>
#include <vector>

#include "backend.h"
#include "checks.h"
#include "cpu_dot.h"
#include "cpu_minmax.h"
#include "cpu_pool.h"
#include "dtypes.h"
#include "ops.cuh"
#include "reduce_cache.h"
#include "reduce_kernel.cuh"
#include "route.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

using namespace cubridge;

namespace {

// ---- CPU ------------------------------------------------------------------

// Folds part(begin, end) over blocks of kCpuReduceBlock elements, computed on
// the thread pool, in block order with merge: the result does not depend on
// the number of threads.
template <class Part, class PartFn, class Merge>
cubridge_status cpu_blocks(const char* fn, size_t n, Part init, PartFn part, Merge merge,
                           Part* out) {
  const size_t nblocks = (n + kCpuReduceBlock - 1) / kCpuReduceBlock;
  // One block (up to kCpuReduceBlock elements) keeps its partial on the stack.
  // It runs through the same `body` as many blocks: a separate one-block lambda
  // was left unvectorised by GCC (f32 sum of 1e4: 3.1 us against 1.5).
  Part single = init;
  std::vector<Part> many;
  Part* partial = &single;
  if (nblocks > 1) {
    try {
      many.resize(nblocks);
    } catch (const std::bad_alloc&) {
      return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    partial = many.data();
  }
  auto body = [&](size_t b0, size_t b1) {
    for (size_t b = b0; b < b1; ++b) {
      partial[b] = part(b * kCpuReduceBlock, b + 1 == nblocks ? n : (b + 1) * kCpuReduceBlock);
    }
  };
  if (n < kCpuReduceParallelMin) {
    run_best(body, 0, nblocks);  // a second block too small to pay for a hand-off
  } else {
    parallel_for(nblocks, 1, body);
  }
  Part r = init;
  for (size_t b = 0; b < nblocks; ++b) r = merge(r, partial[b]);
  *out = r;
  return CUBRIDGE_OK;
}

// Reduces f(0..n) with `comb`, starting each block's lanes at `init`.
template <class Acc, class F, class Comb>
cubridge_status cpu_reduce(const char* fn, size_t n, Acc init, F f, Comb comb, Acc* out) {
  auto block = [&](size_t begin, size_t end) {
    Acc lane[kCpuLanes];
    for (int j = 0; j < kCpuLanes; ++j) lane[j] = init;
    size_t i = begin;
    for (; i + kCpuLanes <= end; i += kCpuLanes) {
      for (int j = 0; j < kCpuLanes; ++j) lane[j] = comb(lane[j], f(i + j));
    }
    for (; i < end; ++i) lane[0] = comb(lane[0], f(i));
    for (int w = kCpuLanes / 2; w > 0; w /= 2) {
      for (int j = 0; j < w; ++j) lane[j] = comb(lane[j], lane[j + w]);
    }
    return lane[0];
  };
  return cpu_blocks(fn, n, init, block, comb, out);
}

// Min or max of x[0..n) in MinMaxOf<T>, NaN if any element is NaN. The lanes
// compare without NaN branches and NaNs are counted on the side: 10x faster
// than MinOp/MaxOp in cpu_reduce. Float and double: cpu_minmax.h.
template <class T, bool kMin>
cubridge_status cpu_minmax(const char* fn, const T* x, size_t n, MinMaxOf<T>* out) {
  using V = MinMaxOf<T>;
  struct Part {
    V v;
    bool nan;
  };
  // The smaller (kMin) or larger of a and b, b on ties; no NaN branches.
  auto pick = [](V a, V b) { return kMin ? (a < b ? a : b) : (a > b ? a : b); };
  auto block = [x, pick](size_t begin, size_t end) {
    Part p;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      p.v = cpu_minmax_block(kMin, x, begin, end, &p.nan);
    } else {
      const V identity = kMin ? min_identity<V>() : max_identity<V>();
      V lane[kCpuLanes];
      for (int j = 0; j < kCpuLanes; ++j) lane[j] = identity;
      int nans = 0;
      size_t i = begin;
      for (; i + kCpuLanes <= end; i += kCpuLanes) {
        for (int j = 0; j < kCpuLanes; ++j) {
          V e = ToMinMax<T>{}(x[i + j]);
          nans |= e != e;
          lane[j] = pick(e, lane[j]);
        }
      }
      for (; i < end; ++i) {
        V e = ToMinMax<T>{}(x[i]);
        nans |= e != e;
        lane[0] = pick(e, lane[0]);
      }
      p.v = lane[0];
      for (int j = 1; j < kCpuLanes; ++j) p.v = pick(lane[j], p.v);
      p.nan = nans != 0;
    }
    return p;
  };
  auto merge = [pick](Part acc, const Part& p) {
    acc.nan = acc.nan || p.nan;
    acc.v = pick(p.v, acc.v);
    return acc;
  };
  Part total{};  // cpu_blocks sets it; {} because GCC cannot tell (-Wmaybe-uninitialized)
  CUBRIDGE_TRY(cpu_blocks(fn, n, Part{kMin ? min_identity<V>() : max_identity<V>(), false}, block,
                          merge, &total));
  if constexpr (!is_int_v<V>) {
    if (total.nan) total.v = cuda::std::numeric_limits<V>::quiet_NaN();
  }
  *out = total.v;
  return CUBRIDGE_OK;
}

// ---- GPU ------------------------------------------------------------------

// Waits until the single-pass kernel on `stream` has published call `seq`'s
// result. Spins on the done flag first: the host sees it as soon as the value
// lands, before the kernel retires and without a driver call, which saves
// 1-2 us a small reduction (bench: "sum" at 1e3). A longer wait (work queued
// before the reduction, a failed launch, a stream under capture) ends in
// cudaStreamSynchronize, which honours the context's blocking-sync setting
// and reports errors.
cubridge_status wait_done(const char* fn, cudaStream_t stream, ReduceScratch* s, unsigned seq) {
  const auto* done =
      reinterpret_cast<const unsigned*>(static_cast<char*>(s->result) + kRedDoneOffset);
  const auto deadline = std::chrono::steady_clock::now() + kRedSpin;
  for (int i = 1;; ++i) {
    if (__atomic_load_n(done, __ATOMIC_ACQUIRE) == seq) return CUBRIDGE_OK;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) break;
  }
  CUBRIDGE_CUDA(fn, cudaStreamSynchronize(stream));
  if (__atomic_load_n(done, __ATOMIC_ACQUIRE) != seq) {
    return fail(CUBRIDGE_ERR_INTERNAL, "%s: the reduction finished without publishing its result",
                fn);
  }
  return CUBRIDGE_OK;
}

// R's reduction (sum, dot, min or max) of n > 0 elements with the
// single-pass kernel; waits and stores the result in *acc.
template <class R, class T>
cubridge_status gpu_single_pass(const char* fn, cudaStream_t stream, const T* x, const T* y,
                                size_t n, typename R::Acc* acc) {
  using Acc = typename R::Acc;
  ReduceScratch* s = nullptr;
  std::unique_lock<std::mutex> held;  // the scratch, for the whole reduction
  int device = 0;
  CUBRIDGE_TRY(reduce_scratch(fn, stream, &s, &held, &device));
  const unsigned seq = ++s->seq;
  RedResult<Acc> out{
      static_cast<Acc*>(s->result_dev),
      reinterpret_cast<unsigned*>(static_cast<char*>(s->result_dev) + kRedDoneOffset), seq};
  cudaError_t err = launch_reduce<R>(x, y, n, s->blocks, out, device, stream);
  if (err != cudaSuccess) return fail_cuda(err, fn, "kernel launch");
  CUBRIDGE_TRY(wait_done(fn, stream, s, seq));
  memcpy(acc, s->result, sizeof(Acc));
  return CUBRIDGE_OK;
}

// ---- shared checks ----------------------------------------------------------

// Validates and routes a reduction over `args` (the inputs).
cubridge_status prepare(const char* fn, int dtype, const Arg* args, int count, size_t n,
                        const void* result, cubridge_stream stream, Route* r) {
  CUBRIDGE_TRY(check_dtype(fn, "dtype", dtype));
  if (result == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'result' is NULL", fn);
  }
  CUBRIDGE_TRY(check_length(fn, n, dtype_size(dtype)));
  for (int i = 0; i < count; ++i) CUBRIDGE_TRY(check_not_null(fn, args[i].name, args[i].ptr, n));
  r->path = Path::kCpu;
  r->device = -1;
  if (n == 0) return CUBRIDGE_OK;
  // Host arrays always reduce on CPU threads (host_bytes = 0).
  return route(fn, args, count, 0, stream, r);
}

template <class T, bool kMin>
cubridge_status minmax(const char* fn, const T* x, size_t n, void* result, cudaStream_t stream,
                       const Route& r) {
  using V = MinMaxOf<T>;
  V v{};  // either branch sets it; {} because GCC cannot tell (-Wmaybe-uninitialized)
  if (r.path == Path::kDevice) {
    CUBRIDGE_TRY((gpu_single_pass<MinOrMax<T, kMin>>(fn, stream, x, x, n, &v)));
  } else {
    CUBRIDGE_TRY((cpu_minmax<T, kMin>(fn, x, n, &v)));
  }
  T out = convert_value<T, V>(v);
  memcpy(result, &out, sizeof(T));
  return CUBRIDGE_OK;
}

cubridge_status min_or_max(const char* fn, bool is_min, int dtype, const void* x, size_t n,
                           void* result, cubridge_stream stream) {
  clear_error();
  Route r;  // first: takes this thread's cubridge_assume_device hint
  const Arg args[] = {{"x", x}};
  CUBRIDGE_TRY(prepare(fn, dtype, args, 1, n, result, stream, &r));
  if (n == 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'n' is 0 (no %s of an empty array)",
                fn, is_min ? "minimum" : "maximum");
  }
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xt = static_cast<const T*>(x);
    return is_min ? minmax<T, true>(fn, xt, n, result, raw_stream(stream), r)
                  : minmax<T, false>(fn, xt, n, result, raw_stream(stream), r);
  });
}

// Sum of x, or (kDot) dot of x and y, in AccOf<T>.
template <bool kDot>
cubridge_status sum_or_dot(const char* fn, int dtype, const void* x, const void* y, size_t n,
                           void* result, cubridge_stream stream) {
  clear_error();
  Route r;  // first: takes this thread's cubridge_assume_device hint
  const Arg args[] = {{"x", x}, {"y", y}};
  CUBRIDGE_TRY(prepare(fn, dtype, args, kDot ? 2 : 1, n, result, stream, &r));
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = AccOf<T>;
    const T* xp = static_cast<const T*>(x);
    const T* yp = static_cast<const T*>(y);
    Acc acc = 0;
    if (n == 0) {
    } else if (r.path == Path::kDevice) {
      CUBRIDGE_TRY((gpu_single_pass<SumOrDot<T, kDot>>(fn, raw_stream(stream), xp, yp, n, &acc)));
    } else if constexpr (kDot && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
      auto block = [xp, yp](size_t begin, size_t end) { return cpu_dot_block(xp, yp, begin, end); };
      CUBRIDGE_TRY(cpu_blocks(fn, n, Acc(0), block, AccAdd<Acc>{}, &acc));
    } else {
      auto term = [xp, yp](size_t i) { return red_term<T, kDot>(xp[i], kDot ? yp[i] : xp[i]); };
      CUBRIDGE_TRY(cpu_reduce(fn, n, Acc(0), term, AccAdd<Acc>{}, &acc));
    }
    memcpy(result, &acc, sizeof(Acc));
    return CUBRIDGE_OK;
  });
}

}  // namespace

extern "C" {

CUBRIDGE_API int cubridge_sum_dtype(int dtype) {
  if (!dtype_known(dtype)) return -1;
  return dtype_is_float(dtype) ? CUBRIDGE_FLOAT64 : CUBRIDGE_INT64;
}

CUBRIDGE_API cubridge_status cubridge_sum(int dtype, const void* x, size_t n, void* result,
                                          cubridge_stream stream) {
  return sum_or_dot<false>("cubridge_sum", dtype, x, nullptr, n, result, stream);
}

CUBRIDGE_API cubridge_status cubridge_dot(int dtype, const void* x, const void* y, size_t n,
                                          void* result, cubridge_stream stream) {
  return sum_or_dot<true>("cubridge_dot", dtype, x, y, n, result, stream);
}

CUBRIDGE_API cubridge_status cubridge_min(int dtype, const void* x, size_t n, void* result,
                                          cubridge_stream stream) {
  return min_or_max("cubridge_min", true, dtype, x, n, result, stream);
}

CUBRIDGE_API cubridge_status cubridge_max(int dtype, const void* x, size_t n, void* result,
                                          cubridge_stream stream) {
  return min_or_max("cubridge_max", false, dtype, x, n, result, stream);
}

}  // extern "C"
