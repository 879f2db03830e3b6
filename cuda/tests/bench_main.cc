// cubridge_bench: effective bandwidth of add and sum on device memory (CUDA
// events, mean of 50 after a warm-up), wall time per small async add and per
// small sum, the pooled allocator against cudaMalloc, ops on every device, and
// the host-array round trip. On the CPU backend (CUBRIDGE_BACKEND=cpu): wall
// time per call of every op from n = 1e3 to 1e7 on host arrays.
// Usage: cubridge_bench [n_large]
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "cubridge/cubridge.h"

#define CHECK(call)                                                            \
  do {                                                                         \
    cubridge_status st_ = (call);                                              \
    if (st_ != CUBRIDGE_OK) {                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, cubridge_status_name(st_), \
              cubridge_last_error());                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Mean milliseconds of `reps` runs of f between two events (after one warm-up).
template <class F>
double TimeMs(F f, int reps) {
  cubridge_event e0, e1;
  CHECK(cubridge_event_create(&e0));
  CHECK(cubridge_event_create(&e1));
  f();
  CHECK(cubridge_device_synchronize());
  CHECK(cubridge_event_record(e0, nullptr));
  for (int i = 0; i < reps; ++i) f();
  CHECK(cubridge_event_record(e1, nullptr));
  CHECK(cubridge_event_synchronize(e1));
  float ms = 0;
  CHECK(cubridge_event_elapsed_ms(e0, e1, &ms));
  CHECK(cubridge_event_destroy(e0));
  CHECK(cubridge_event_destroy(e1));
  return ms / reps;
}

void Bandwidth(int dtype, size_t n) {
  const size_t sz = cubridge_dtype_size(dtype), bytes = n * sz;
  void *a, *b, *c;
  CHECK(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes, &a));
  CHECK(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes, &b));
  CHECK(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes, &c));
  CHECK(cubridge_fill(dtype, 1.0, a, n, nullptr));
  CHECK(cubridge_fill(dtype, 2.0, b, n, nullptr));
  double ms = TimeMs([&] { CHECK(cubridge_add(dtype, a, b, c, n, nullptr)); }, 50);
  printf("add %-8s n=%-11zu %8.3f ms  %7.0f GB/s\n", cubridge_dtype_name(dtype), n, ms,
         3.0 * bytes / ms / 1e6);
  double r;
  ms = TimeMs([&] { CHECK(cubridge_sum(dtype, a, n, &r, nullptr)); }, 50);
  printf("sum %-8s n=%-11zu %8.3f ms  %7.0f GB/s (incl. result to host)\n",
         cubridge_dtype_name(dtype), n, ms, 1.0 * bytes / ms / 1e6);
  CHECK(cubridge_free(CUBRIDGE_MEMORY_DEVICE, a));
  CHECK(cubridge_free(CUBRIDGE_MEMORY_DEVICE, b));
  CHECK(cubridge_free(CUBRIDGE_MEMORY_DEVICE, c));
}

void SmallCalls(int dtype) {
  const size_t n = 1000, bytes = n * cubridge_dtype_size(dtype);
  void *a, *c;
  CHECK(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes, &a));
  CHECK(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes, &c));
  CHECK(cubridge_fill(dtype, 1.0, a, n, nullptr));
  const int reps = 20000;
  CHECK(cubridge_device_synchronize());
  double t0 = Now();
  for (int i = 0; i < reps; ++i) CHECK(cubridge_add(dtype, a, a, c, n, nullptr));
  double t1 = Now();
  CHECK(cubridge_device_synchronize());
  printf("add %-8s n=1000 wall per async call: %.2f us\n", cubridge_dtype_name(dtype),
         (t1 - t0) / reps * 1e6);
  double r;
  t0 = Now();
  for (int i = 0; i < 2000; ++i) CHECK(cubridge_sum(dtype, a, n, &r, nullptr));
  t1 = Now();
  printf("sum %-8s n=1000 wall per call incl. result: %.2f us\n", cubridge_dtype_name(dtype),
         (t1 - t0) / 2000 * 1e6);
  CHECK(cubridge_free(CUBRIDGE_MEMORY_DEVICE, a));
  CHECK(cubridge_free(CUBRIDGE_MEMORY_DEVICE, c));
}

void HostRoundTrip(size_t n) {
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  CHECK(cubridge_add(CUBRIDGE_FLOAT32, a.data(), b.data(), c.data(), n, nullptr));  // warm
  const int reps = n >= 100000000 ? 3 : 10;
  double t0 = Now();
  for (int i = 0; i < reps; ++i) {
    CHECK(cubridge_add(CUBRIDGE_FLOAT32, a.data(), b.data(), c.data(), n, nullptr));
  }
  double s = (Now() - t0) / reps;
  printf("add float32 host arrays n=%-11zu %9.3f ms  (%.1f GB/s of host traffic)\n", n, s * 1e3,
         12.0 * n / s / 1e9);
}

// Median wall microseconds per call of f over `reps` calls (7 batches).
template <class F>
double PerCallUs(F f, int reps) {
  f();
  std::vector<double> t;
  for (int k = 0; k < 7; ++k) {
    double t0 = Now();
    for (int i = 0; i < reps; ++i) f();
    t.push_back((Now() - t0) / reps * 1e6);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// CPU backend: per-call wall time of each op on host float32 arrays, out=.
void CpuCalls() {
  printf("cpu backend, float32 host arrays, wall us per call (median of 7 batches):\n");
  printf("%-6s %10s %10s %10s %10s %10s\n", "op", "n=1e3", "n=1e4", "n=1e5", "n=1e6", "n=1e7");
  const size_t sizes[] = {1000, 10000, 100000, 1000000, 10000000};
  std::vector<float> a(10000000, 1.5f), b(10000000, 2.5f), c(10000000);
  const char* ops[] = {"add", "mul", "axpy", "fill", "sum", "dot", "max"};
  for (const char* op : ops) {
    printf("%-6s", op);
    for (size_t n : sizes) {
      const int reps = static_cast<int>(std::max<size_t>(3, 20000000 / n / 4));
      double r = 0;
      float fr = 0;
      std::string o(op);
      auto f = [&] {
        if (o == "add")
          CHECK(cubridge_add(CUBRIDGE_FLOAT32, a.data(), b.data(), c.data(), n, nullptr));
        if (o == "mul")
          CHECK(cubridge_mul(CUBRIDGE_FLOAT32, a.data(), b.data(), c.data(), n, nullptr));
        if (o == "axpy")
          CHECK(cubridge_axpy(CUBRIDGE_FLOAT32, 0.5, a.data(), c.data(), n, nullptr));
        if (o == "fill") CHECK(cubridge_fill(CUBRIDGE_FLOAT32, 3.0, c.data(), n, nullptr));
        if (o == "sum") CHECK(cubridge_sum(CUBRIDGE_FLOAT32, a.data(), n, &r, nullptr));
        if (o == "dot") CHECK(cubridge_dot(CUBRIDGE_FLOAT32, a.data(), b.data(), n, &r, nullptr));
        if (o == "max") CHECK(cubridge_max(CUBRIDGE_FLOAT32, a.data(), n, &fr, nullptr));
      };
      printf(" %10.2f", PerCallUs(f, reps));
    }
    printf("\n");
  }
}

// The pooled allocator against the synchronous one: wall us per alloc + free.
void Allocators() {
  for (size_t bytes : {size_t(4000), size_t(4) << 20, size_t(400) << 20}) {
    double pool = PerCallUs(
        [&] {
          void* p;
          CHECK(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, bytes, -1, nullptr, &p));
          CHECK(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr));
        },
        200);
    double plain = PerCallUs(
        [&] {
          void* p;
          CHECK(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes, &p));
          CHECK(cubridge_free(CUBRIDGE_MEMORY_DEVICE, p));
        },
        20);
    printf("alloc+free %10zu bytes: pool %8.2f us, cudaMalloc/cudaFree %8.2f us\n", bytes, pool,
           plain);
  }
  cubridge_memory_stats st;
  st.struct_size = sizeof(st);
  CHECK(cubridge_memory_stats_get(-1, &st));
  printf("pool stats: in use %llu, reserved %llu, peak %llu, allocs %llu\n",
         (unsigned long long)st.in_use_bytes, (unsigned long long)st.reserved_bytes,
         (unsigned long long)st.peak_in_use_bytes, (unsigned long long)st.alloc_count);
  CHECK(cubridge_empty_cache(-1));
}

// Every device: add and sum bandwidth of n float32 with the caller on device 0.
void EveryDevice(size_t n) {
  int count = 0;
  CHECK(cubridge_device_count(&count));
  for (int d = 0; d < count; ++d) {
    const size_t bytes = n * 4;
    void *a, *c;
    CHECK(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, bytes, d, nullptr, &a));
    CHECK(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, bytes, d, nullptr, &c));
    CHECK(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, a, n, nullptr));
    double r = 0;
    double us = PerCallUs([&] { CHECK(cubridge_sum(CUBRIDGE_FLOAT32, a, n, &r, nullptr)); }, 10);
    double small =
        PerCallUs([&] { CHECK(cubridge_sum(CUBRIDGE_FLOAT32, a, 1000, &r, nullptr)); }, 500);
    printf("device %d: sum float32 n=%zu %8.1f GB/s to host; n=1000 %.2f us\n", d, n,
           bytes / us / 1e3, small);
    CHECK(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a, nullptr));
    CHECK(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, c, nullptr));
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t big = argc > 1 ? strtoull(argv[1], nullptr, 10) : 400000000;
  int backend = -1;
  CHECK(cubridge_get_backend(&backend));
  char name[256] = "cpu";
  if (backend == CUBRIDGE_BACKEND_CUDA) CHECK(cubridge_device_name(0, name, sizeof(name)));
  printf("cubridge_bench: backend %s (%s)\n", backend == CUBRIDGE_BACKEND_CUDA ? "cuda" : "cpu",
         name);
  if (backend == CUBRIDGE_BACKEND_CPU) {
    CpuCalls();
    return 0;
  }
  Allocators();
  EveryDevice(big);
  for (int dt : {CUBRIDGE_FLOAT32, CUBRIDGE_FLOAT64}) {
    Bandwidth(dt, big);
    Bandwidth(dt, 10000000);
  }
  SmallCalls(CUBRIDGE_FLOAT32);
  SmallCalls(CUBRIDGE_FLOAT64);
  for (size_t n : {size_t(1000), size_t(1000000), size_t(10000000), size_t(100000000)}) {
    HostRoundTrip(n);
  }
  return 0;
}
