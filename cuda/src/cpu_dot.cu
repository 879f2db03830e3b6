// See cpu_dot.h.
#include <string.h>

#include "cpu_dot.h"
#include "cpu_pool.h"

#if defined(__x86_64__) && !defined(__AVX2__)
#define CB_DOT_AVX2 1
#endif

namespace cubridge {
namespace {

constexpr int kLanes = 16;

#if defined(CB_DOT_AVX2)
// GCC vector types rather than <immintrin.h>, which CUDA 12's nvcc front end
// cannot parse with g++ 13's headers (AMX builtins).
typedef double D4 __attribute__((vector_size(32)));

// Four elements from p as doubles.
__attribute__((target("avx2"))) inline D4 load4(const double* p) {
  D4 v;
  memcpy(&v, p, sizeof v);
  return v;
}
__attribute__((target("avx2"))) inline D4 load4(const float* p) {
  return D4{p[0], p[1], p[2], p[3]};
}

// Adds x[i] * y[i] into lanes[i % 16] for i in [0, m), m a multiple of 16;
// multiply, then add: no FMA (AVX2 alone has none), so each lane rounds as
// the scalar loop does.
template <class T>
__attribute__((target("avx2"))) void lanes_avx2(const T* x, const T* y, size_t m, double* lanes) {
  D4 a[4];
  memcpy(a, lanes, sizeof a);
  for (size_t i = 0; i < m; i += kLanes) {
    for (int k = 0; k < 4; ++k) a[k] += load4(x + i + 4 * k) * load4(y + i + 4 * k);
  }
  memcpy(lanes, a, sizeof a);
}
#endif

// The dot of x[begin, end) in the lane order of cpu_dot.h.
template <class T>
double dot_block(const T* x, const T* y, size_t begin, size_t end) {
  double lane[kLanes] = {};
  x += begin;
  y += begin;
  const size_t n = end - begin, m = n / kLanes * kLanes;
  size_t i = 0;
#if defined(CB_DOT_AVX2)
  if (cpu_has_avx2()) {
    lanes_avx2(x, y, m, lane);
    i = m;
  }
#endif
  for (; i < m; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      lane[j] += static_cast<double>(x[i + j]) * static_cast<double>(y[i + j]);
    }
  }
  for (; i < n; ++i) lane[0] += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
  }
  return lane[0];
}

}  // namespace

double cpu_dot_block(const float* x, const float* y, size_t begin, size_t end) {
  return dot_block(x, y, begin, end);
}

double cpu_dot_block(const double* x, const double* y, size_t begin, size_t end) {
  return dot_block(x, y, begin, end);
}

}  // namespace cubridge
