// Helpers shared by the cubridge C++ tests: dtype storage types, 16-bit float
// conversions written independently of the library, and memory helpers that
// place data in host or device memory on whichever backend is in use.
#ifndef CUBRIDGE_TESTS_TEST_UTIL_H_
#define CUBRIDGE_TESTS_TEST_UTIL_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cubridge/cubridge.h"
#include "gtest/gtest.h"

namespace cubridge_test {

// ---- Test sizes ---------------------------------------------------------------

// n, or at most $CUBRIDGE_TEST_MAX_ELEMENTS when that is set: --config=aarch64
// sets it, as its tests run under qemu-user, where the largest arrays (millions
// of elements through the -O0 reference loops) take minutes. The cap keeps
// several CPU grains (the threaded paths); a capped test says so on stderr.
inline size_t TestElements(size_t n) {
  const char* env = getenv("CUBRIDGE_TEST_MAX_ELEMENTS");
  const size_t cap = env && *env ? strtoull(env, nullptr, 10) : 0;
  if (cap == 0 || n <= cap) return n;
  fprintf(stderr, "note: %zu elements capped at %zu (CUBRIDGE_TEST_MAX_ELEMENTS)\n", n, cap);
  return cap;
}

// ---- 16-bit floats (reference conversions, round to nearest even) -----------

struct Half {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};

inline uint32_t FloatBits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

inline float ToFloat(BF16 h) { return BitsFloat(static_cast<uint32_t>(h.bits) << 16); }
inline BF16 ToBF16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return BF16{static_cast<uint16_t>((u >> 16) | 0x40)};
  u += 0x7fffu + ((u >> 16) & 1);
  return BF16{static_cast<uint16_t>(u >> 16)};
}

inline float ToFloat(Half h) {
  uint32_t sign = (h.bits & 0x8000u) << 16, exp = (h.bits >> 10) & 0x1f, man = h.bits & 0x3ff;
  if (exp == 0x1f) return BitsFloat(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return BitsFloat(sign | ((exp + 112) << 23) | (man << 13));
}
inline Half ToHalf(float f) {
  uint32_t u = FloatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  float a = std::fabs(f);
  if (std::isnan(f)) return Half{static_cast<uint16_t>(sign | 0x7e00)};
  if (a >= 65520.0f) return Half{static_cast<uint16_t>(sign | 0x7c00)};  // rounds to inf
  if (a < std::ldexp(1.0f, -14)) {                                       // subnormal
    float q = std::nearbyint(a * std::ldexp(1.0f, 24));                  // RNE
    return Half{static_cast<uint16_t>(sign | static_cast<uint16_t>(q))};
  }
  uint32_t ua = FloatBits(a);
  uint32_t exp = (ua >> 23) - 112, man = ua & 0x7fffffu;
  uint32_t h = (exp << 10) | (man >> 13);
  uint32_t rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;
  return Half{static_cast<uint16_t>(sign | h)};
}

// ---- dtype traits for the tests ---------------------------------------------

template <class S>
struct TypeInfo;
// The plain C types compute in themselves.
template <class S, int kDtype>
struct PlainTypeInfo {
  static constexpr int dtype = kDtype;
  using C = S;
  static C Up(S v) { return v; }
  static S Down(C v) { return v; }
};
template <>
struct TypeInfo<float> : PlainTypeInfo<float, CUBRIDGE_FLOAT32> {};
template <>
struct TypeInfo<double> : PlainTypeInfo<double, CUBRIDGE_FLOAT64> {};
template <>
struct TypeInfo<int32_t> : PlainTypeInfo<int32_t, CUBRIDGE_INT32> {};
template <>
struct TypeInfo<int64_t> : PlainTypeInfo<int64_t, CUBRIDGE_INT64> {};
// The 16-bit floats compute in float.
template <class S, int kDtype, S (*kDown)(float)>
struct Float16TypeInfo {
  static constexpr int dtype = kDtype;
  using C = float;
  static C Up(S v) { return ToFloat(v); }
  static S Down(C v) { return kDown(v); }
};
template <>
struct TypeInfo<Half> : Float16TypeInfo<Half, CUBRIDGE_FLOAT16, ToHalf> {};
template <>
struct TypeInfo<BF16> : Float16TypeInfo<BF16, CUBRIDGE_BFLOAT16, ToBF16> {};

template <class S>
constexpr bool IsInt() {
  return std::is_integral<S>::value;
}

// Bitwise-or-NaN equality of two stored values.
template <class S>
bool SameValue(S x, S y) {
  if constexpr (IsInt<S>()) {
    return x == y;
  } else {
    double a = TypeInfo<S>::Up(x), b = TypeInfo<S>::Up(y);
    if (std::isnan(a) && std::isnan(b)) return true;
    return memcmp(&x, &y, sizeof(S)) == 0 || (a == b && a != 0);
  }
}

template <class S>
double AsDouble(S v) {
  return static_cast<double>(TypeInfo<S>::Up(v));
}

template <class S>
void ExpectSame(const std::vector<S>& got, const std::vector<S>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!SameValue(got[i], want[i])) {
      if (bad++ == 0) first = i;
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": first mismatch at " << first << ": got " << AsDouble(got[first])
                     << " want " << AsDouble(want[first]);
}

// ---- errors ------------------------------------------------------------------------

// A call returned `want` and its error message names `needle` (e.g. "'a'").
inline void ExpectError(cubridge_status got, cubridge_status want, const char* needle) {
  EXPECT_EQ(got, want);
  EXPECT_NE(std::string(cubridge_last_error()).find(needle), std::string::npos)
      << "error message: " << cubridge_last_error();
}

// ---- the C ABI's name tables ------------------------------------------------------

// name(value) is the paired name for each of `want`, and nullptr for -1 and
// for `count`, just past the table.
inline void ExpectNameTable(const char* (*name)(int),
                            const std::vector<std::pair<int, const char*>>& want, int count) {
  for (const auto& [value, text] : want) EXPECT_STREQ(name(value), text) << value;
  EXPECT_EQ(name(count), nullptr);
  EXPECT_EQ(name(-1), nullptr);
}

// ---- backend and memory -------------------------------------------------------

inline int Backend() {
  int b = -1;
  EXPECT_EQ(cubridge_get_backend(&b), CUBRIDGE_OK);
  return b;
}
inline bool OnCuda() { return Backend() == CUBRIDGE_BACKEND_CUDA; }

// Where test data lives for one run.
enum class Mem { kHost, kDevice };
inline const char* MemName(Mem m) { return m == Mem::kHost ? "host" : "device"; }

// A buffer of `bytes` (+ optional leading offset) in host memory or in
// cubridge_malloc(DEVICE) memory, filled and read through cubridge_memcpy.
class Buffer {
 public:
  Buffer(Mem mem, size_t bytes, size_t offset = 0) : mem_(mem), bytes_(bytes), offset_(offset) {
    if (mem == Mem::kHost) {
      host_.resize(bytes + offset + 64);
      base_ = host_.data();
    } else {
      EXPECT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, bytes + offset + 64, &base_), CUBRIDGE_OK)
          << cubridge_last_error();
    }
  }
  ~Buffer() {
    if (mem_ == Mem::kDevice && base_) {
      EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, base_), CUBRIDGE_OK) << cubridge_last_error();
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* get() { return static_cast<char*>(base_) + offset_; }
  void Upload(const void* src, size_t bytes) {
    ASSERT_LE(bytes, bytes_);
    if (bytes == 0) return;
    ASSERT_EQ(cubridge_memcpy(get(), src, bytes, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  }
  void Download(void* dst, size_t bytes) {
    ASSERT_LE(bytes, bytes_);
    if (bytes == 0) return;
    ASSERT_EQ(cubridge_stream_synchronize(nullptr), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_EQ(cubridge_memcpy(dst, get(), bytes, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  }

 private:
  Mem mem_;
  size_t bytes_, offset_;
  std::vector<unsigned char> host_;
  void* base_ = nullptr;
};

}  // namespace cubridge_test

#endif  // CUBRIDGE_TESTS_TEST_UTIL_H_
