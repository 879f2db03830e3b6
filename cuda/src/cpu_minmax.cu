// See cpu_minmax.h.
#include <string.h>

#include <limits>

#include "cpu_minmax.h"
#include "cpu_pool.h"

namespace cubridge {
namespace {

template <class T>
constexpr size_t kLanes = 256 / sizeof(T);

// The smaller (kMin) or larger of e and acc; acc on ties and where either is
// NaN, as x86's minps/maxps pick, so every copy picks the same element.
template <bool kMin, class T>
inline T pick(T e, T acc) {
  return kMin ? (e < acc ? e : acc) : (e > acc ? e : acc);
}

#if defined(CUBRIDGE_CPU_DISPATCH)
// One ISA's vectors through GCC builtins (not <immintrin.h>, which CUDA 12's
// nvcc front end cannot parse with g++ 13's headers): pick sets acc to
// pick(e, acc) per element; see_nans adds the unordered compare of two
// vectors (true where either is NaN) to `seen`. Vectors go by reference: by
// value they change the ABI outside these targets (-Wpsabi).
#define CB_AVX2 __attribute__((target("avx2")))
#define CB_AVX512 __attribute__((target("avx512f")))

struct Avx2Float {
  typedef float V __attribute__((vector_size(32)));
  using Nans = V;
  template <bool kMin>
  CB_AVX2 static void pick(V& acc, const V& e) {
    acc = kMin ? __builtin_ia32_minps256(e, acc) : __builtin_ia32_maxps256(e, acc);
  }
  CB_AVX2 static void see_nans(Nans& seen, const V& a, const V& b) {
    seen = __builtin_ia32_orps256(seen, __builtin_ia32_cmpps256(a, b, 3 /* unordered */));
  }
  CB_AVX2 static bool any(const Nans& seen) { return __builtin_ia32_movmskps256(seen) != 0; }
};
struct Avx2Double {
  typedef double V __attribute__((vector_size(32)));
  using Nans = V;
  template <bool kMin>
  CB_AVX2 static void pick(V& acc, const V& e) {
    acc = kMin ? __builtin_ia32_minpd256(e, acc) : __builtin_ia32_maxpd256(e, acc);
  }
  CB_AVX2 static void see_nans(Nans& seen, const V& a, const V& b) {
    seen = __builtin_ia32_orpd256(seen, __builtin_ia32_cmppd256(a, b, 3));
  }
  CB_AVX2 static bool any(const Nans& seen) { return __builtin_ia32_movmskpd256(seen) != 0; }
};
// AVX-512 compares into mask registers; 4: the current rounding mode.
struct Avx512Float {
  typedef float V __attribute__((vector_size(64)));
  using Nans = unsigned;
  template <bool kMin>
  CB_AVX512 static void pick(V& acc, const V& e) {
    acc = kMin ? __builtin_ia32_minps512_mask(e, acc, acc, 0xffff, 4)
               : __builtin_ia32_maxps512_mask(e, acc, acc, 0xffff, 4);
  }
  CB_AVX512 static void see_nans(Nans& seen, const V& a, const V& b) {
    seen |= __builtin_ia32_cmpps512_mask(a, b, 3, 0xffff, 4);
  }
  static bool any(const Nans& seen) { return seen != 0; }
};
struct Avx512Double {
  typedef double V __attribute__((vector_size(64)));
  using Nans = unsigned;
  template <bool kMin>
  CB_AVX512 static void pick(V& acc, const V& e) {
    acc = kMin ? __builtin_ia32_minpd512_mask(e, acc, acc, 0xff, 4)
               : __builtin_ia32_maxpd512_mask(e, acc, acc, 0xff, 4);
  }
  CB_AVX512 static void see_nans(Nans& seen, const V& a, const V& b) {
    seen |= __builtin_ia32_cmppd512_mask(a, b, 3, 0xff, 4);
  }
  static bool any(const Nans& seen) { return seen != 0; }
};

// The lanes loop over x[0, m), m a multiple of kLanes<T>, in Isa's vectors:
// each vector of lanes is its own chain of picks, so they overlap. Returns
// whether an element was NaN.
template <class Isa, bool kMin, class T>
inline bool vector_lanes(const T* x, size_t m, T* lane) {
  using V = typename Isa::V;
  constexpr int kPer = sizeof(V) / sizeof(T), kVecs = kLanes<T> / kPer;
  V acc[kVecs];
  typename Isa::Nans seen{};
  memcpy(acc, lane, sizeof acc);
  for (size_t i = 0; i < m; i += kLanes<T>) {
    // Two vectors at a time: AVX2's 16 registers hold the eight chains, two
    // inputs and `seen` (all eight inputs at once spilled a chain to memory).
    for (int k = 0; k < kVecs; k += 2) {
      V e0, e1;
      memcpy(&e0, x + i + k * kPer, sizeof e0);
      memcpy(&e1, x + i + (k + 1) * kPer, sizeof e1);
      Isa::template pick<kMin>(acc[k], e0);
      Isa::template pick<kMin>(acc[k + 1], e1);
      Isa::see_nans(seen, e0, e1);
    }
  }
  memcpy(lane, acc, sizeof acc);
  return Isa::any(seen);
}

// vector_lanes compiled for each ISA, with everything it calls inlined.
template <class Isa, bool kMin, class T>
CB_AVX2 __attribute__((flatten)) bool lanes_avx2(const T* x, size_t m, T* lane) {
  return vector_lanes<Isa, kMin>(x, m, lane);
}
template <class Isa, bool kMin, class T>
CB_AVX512 __attribute__((flatten)) bool lanes_avx512(const T* x, size_t m, T* lane) {
  return vector_lanes<Isa, kMin>(x, m, lane);
}

// Each element type's vectors.
template <class T>
struct VectorsOf;
template <>
struct VectorsOf<float> {
  using Avx2 = Avx2Float;
  using Avx512 = Avx512Float;
};
template <>
struct VectorsOf<double> {
  using Avx2 = Avx2Double;
  using Avx512 = Avx512Double;
};

// The widest lanes loop this CPU runs over x[0, m); false: none did (the
// scalar loop runs).
template <bool kMin, class T>
bool widest_lanes(const T* x, size_t m, T* lane, bool* nan) {
  if (cpu_has_avx512f()) {
    *nan = lanes_avx512<typename VectorsOf<T>::Avx512, kMin>(x, m, lane);
  } else if (cpu_has_avx2()) {
    *nan = lanes_avx2<typename VectorsOf<T>::Avx2, kMin>(x, m, lane);
  } else {
    return false;
  }
  return true;
}
#endif

template <bool kMin, class T>
T minmax_block(const T* x, size_t begin, size_t end, bool* saw_nan) {
  constexpr size_t L = kLanes<T>;
  T lane[L];
  for (T& l : lane)
    l = kMin ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  x += begin;
  const size_t n = end - begin, m = n / L * L;
  bool nan = false;
  size_t i = 0;
#if defined(CUBRIDGE_CPU_DISPATCH)
  if (widest_lanes<kMin>(x, m, lane, &nan)) i = m;
#endif
  for (; i < m; i += L) {
    for (size_t j = 0; j < L; ++j) {
      nan |= x[i + j] != x[i + j];
      lane[j] = pick<kMin>(x[i + j], lane[j]);
    }
  }
  for (; i < n; ++i) {
    nan |= x[i] != x[i];
    lane[0] = pick<kMin>(x[i], lane[0]);
  }
  T r = lane[0];
  for (size_t j = 1; j < L; ++j) r = pick<kMin>(lane[j], r);
  *saw_nan = nan;
  return r;
}

}  // namespace

float cpu_minmax_block(bool is_min, const float* x, size_t begin, size_t end, bool* saw_nan) {
  return is_min ? minmax_block<true>(x, begin, end, saw_nan)
                : minmax_block<false>(x, begin, end, saw_nan);
}

double cpu_minmax_block(bool is_min, const double* x, size_t begin, size_t end, bool* saw_nan) {
  return is_min ? minmax_block<true>(x, begin, end, saw_nan)
                : minmax_block<false>(x, begin, end, saw_nan);
}

}  // namespace cubridge
