// cubridge_bench: effective bandwidth of add and sum on device memory (CUDA
// events, mean of 50 after a warm-up), wall time per small async add and per
// small sum, and the host-array round trip. Usage: cubridge_bench [n_large]
#include <stdio.h>
#include <stdlib.h>

#include <chrono>
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

}  // namespace

int main(int argc, char** argv) {
  size_t big = argc > 1 ? strtoull(argv[1], nullptr, 10) : 400000000;
  int backend = -1;
  CHECK(cubridge_get_backend(&backend));
  char name[256] = "cpu";
  if (backend == CUBRIDGE_BACKEND_CUDA) CHECK(cubridge_device_name(0, name, sizeof(name)));
  printf("cubridge_bench: backend %s (%s)\n", backend == CUBRIDGE_BACKEND_CUDA ? "cuda" : "cpu",
         name);
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
