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

// Generic front end: f(begin, end).
template <class F>
void parallel_for(size_t n, size_t grain, F& f) {
  parallel_for(n, grain, [](void* c, size_t b, size_t e) { (*static_cast<F*>(c))(b, e); }, &f);
}

// memcpy split over the pool's threads (pieces of at least 1 MiB).
void parallel_memcpy(void* dst, const void* src, size_t bytes);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_CPU_POOL_H_
