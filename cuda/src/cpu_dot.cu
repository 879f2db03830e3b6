// See cpu_dot.h.
#include <string.h>

#include <type_traits>

#include "cpu_dot.h"
#include "cpu_pool.h"

namespace cubridge {
namespace {

constexpr int kLanes = 16;

#if defined(CUBRIDGE_CPU_DISPATCH)
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

// The AVX-512 copy: 16 lanes in two 512-bit vectors. For float the AVX2 loop
// is bound by its eight float-to-double conversions per 16 elements; here it
// takes four. For double it saves half the instructions: measured on the
// 2-core build VM, f64 dot of 65536 in-cache elements took 6.2 us against 7.2.
// Double products: multiply, then add, through builtins (a plain `a += x * y`
// is fused into an FMA under target("avx512f"), which rounds them
// differently). Float products are exact in double, so an FMA gives the same
// bits in one instruction: f32 dot 1e5 in cache 11.2 us against 13.1 (one
// thread of the build VM's EPYC).
typedef double D8 __attribute__((vector_size(64)));
typedef float F8 __attribute__((vector_size(32)));

__attribute__((target("avx512f"))) inline D8 load8(const float* p) {
  F8 v;
  memcpy(&v, p, sizeof v);
  // vcvtps2pd zmm (GCC splits __builtin_convertvector into two ymm halves).
  return __builtin_ia32_cvtps2pd512_mask(v, D8{}, 0xff, 4 /* current rounding */);
}
__attribute__((target("avx512f"))) inline D8 load8(const double* p) {
  D8 v;
  memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
__attribute__((target("avx512f"))) void lanes_avx512(const T* x, const T* y, size_t m,
                                                     double* lanes) {
  D8 a[2];
  memcpy(a, lanes, sizeof a);
  for (size_t i = 0; i < m; i += kLanes) {
    for (int k = 0; k < 2; ++k) {
      const D8 xk = load8(x + i + 8 * k), yk = load8(y + i + 8 * k);
      if constexpr (std::is_same_v<T, float>) {
        a[k] = __builtin_ia32_vfmaddpd512_mask(xk, yk, a[k], 0xff, 4);
      } else {
        a[k] = __builtin_ia32_addpd512_mask(
            a[k], __builtin_ia32_mulpd512_mask(xk, yk, D8{}, 0xff, 4), D8{}, 0xff, 4);
      }
    }
  }
  memcpy(lanes, a, sizeof a);
}

// The widest lanes loop this CPU runs; false: none (the scalar loop runs).
template <class T>
bool vector_lanes(const T* x, const T* y, size_t m, double* lanes) {
  if (cpu_has_avx512f()) {
    lanes_avx512(x, y, m, lanes);
  } else if (cpu_has_avx2()) {
    lanes_avx2(x, y, m, lanes);
  } else {
    return false;
  }
  return true;
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
#if defined(CUBRIDGE_CPU_DISPATCH)
  if (vector_lanes(x, y, m, lane)) i = m;
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
