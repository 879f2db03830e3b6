// A small persistent thread pool for the CPU backend.
#ifndef CUBRIDGE_SRC_CPU_POOL_H_
#define CUBRIDGE_SRC_CPU_POOL_H_

#include <stddef.h>

namespace cubridge {

// Calls fn(ctx, begin, end) over [0, n) split into pieces of at least `grain`
// items, on the pool's threads and the caller's. Runs inline when n <= grain,
// when the pool has one thread, or when the pool is busy with another call
// (so it never deadlocks and never nests). Returns when all pieces are done.
void parallel_for(size_t n, size_t grain, void (*fn)(void* ctx, size_t begin, size_t end),
                  void* ctx);

// The CPU loops are compiled twice, for the x86-64 baseline (SSE2) and for
// AVX2, and the AVX2 copy runs where the CPU has it, as NumPy dispatches its
// loops: on an AVX2 host, add f32 1e4 took 3.7 us against NumPy's 1.9 with
// SSE2 alone. No FMA: a * b + c rounds twice, as on the GPU (__fmul_rn).
// CUBRIDGE_DISABLE_CPU_FEATURES=avx512f,avx2 turns the wider copies off, so
// tests compare every copy on one machine. CUBRIDGE_CPU_DISPATCH is defined
// where the wider copies exist: x86-64 built for less than AVX2.
#if defined(__x86_64__) && !defined(__AVX2__)
#define CUBRIDGE_CPU_DISPATCH 1
#endif

#if defined(CUBRIDGE_CPU_DISPATCH)
bool cpu_has_avx2();
bool cpu_has_avx512f();
// f(begin, end), compiled for AVX2 where f inlines (a lambda does).
template <class F>
__attribute__((target("avx2"))) void run_avx2(F& f, size_t begin, size_t end) {
  f(begin, end);
}
#endif

// f(begin, end) with the best copy of its loops for this CPU.
template <class F>
void run_best(F& f, size_t begin, size_t end) {
#if defined(CUBRIDGE_CPU_DISPATCH)
  if (cpu_has_avx2()) {
    run_avx2(f, begin, end);
    return;
  }
#endif
  f(begin, end);
}

// Generic front end: f(begin, end), with run_best.
template <class F>
void parallel_for(size_t n, size_t grain, F& f) {
  parallel_for(
      n, grain, [](void* c, size_t b, size_t e) { run_best(*static_cast<F*>(c), b, e); }, &f);
}

// memcpy split over the pool's threads (pieces of at least 1 MiB).
void parallel_memcpy(void* dst, const void* src, size_t bytes);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_CPU_POOL_H_
