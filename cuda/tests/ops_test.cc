// Every elementwise op and reduction x dtype x edge size x memory placement
// x alignment, against a plain reference, on the backend in use.
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <utility>

#include "test_util.h"

namespace cubridge_test {
namespace {

const size_t kSizes[] = {0, 1, 2, 3, 7, 31, 32, 33, 1000, 4097, (1u << 20) + 1};

template <class F>
void ForEachDtype(F f) {
  f(float{});
  f(double{});
  f(int32_t{});
  f(int64_t{});
  f(Half{});
  f(BF16{});
}

template <class S>
const char* Name() {
  return cubridge_dtype_name(TypeInfo<S>::dtype);
}

// Values exact in every float dtype (quarters in [-32, 32]); full-range ints.
template <class S>
std::vector<S> Gen(size_t n, uint64_t seed, bool with_zeros = false) {
  std::mt19937_64 rng(seed);
  std::vector<S> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    if constexpr (IsInt<S>()) {
      v[i] = static_cast<S>(r);
      if (with_zeros && r % 7 == 0) v[i] = 0;
      if (with_zeros && r % 11 == 0) v[i] = -1;
    } else {
      double x = (static_cast<int>(r % 257) - 128) / 4.0;
      if (with_zeros && r % 7 == 0) x = 0;
      v[i] = TypeInfo<S>::Down(static_cast<typename TypeInfo<S>::C>(x));
    }
  }
  return v;
}

template <class S>
S Wrap(uint64_t v) {
  return static_cast<S>(v);
}

// ---- plain references ----------------------------------------------------------

template <class S>
S RefBinary(const std::string& op, S a, S b, double zero) {
  using T = TypeInfo<S>;
  if constexpr (IsInt<S>()) {
    uint64_t ua = static_cast<uint64_t>(static_cast<int64_t>(a));
    uint64_t ub = static_cast<uint64_t>(static_cast<int64_t>(b));
    if (op == "add") return Wrap<S>(ua + ub);
    if (op == "sub") return Wrap<S>(ua - ub);
    if (op == "mul") return Wrap<S>(ua * ub);
    if (b == 0) return static_cast<S>(zero);
    if (b == -1) return Wrap<S>(0 - ua);
    return static_cast<S>(a / b);
  } else {
    auto x = T::Up(a), y = T::Up(b);
    if (op == "add") return T::Down(x + y);
    if (op == "sub") return T::Down(x - y);
    if (op == "mul") return T::Down(x * y);
    if (y == 0) return T::Down(static_cast<typename T::C>(zero));
    return T::Down(x / y);
  }
}

template <class S>
S RefAxpy(double alpha, S x, S y) {
  using T = TypeInfo<S>;
  if constexpr (IsInt<S>()) {
    uint64_t al = static_cast<uint64_t>(static_cast<int64_t>(alpha));
    return Wrap<S>(al * static_cast<uint64_t>(static_cast<int64_t>(x)) +
                   static_cast<uint64_t>(static_cast<int64_t>(y)));
  } else {
    using C = typename T::C;
    volatile C prod = static_cast<C>(alpha) * T::Up(x);  // no FMA contraction
    return T::Down(prod + T::Up(y));
  }
}

template <class S>
S RefScale(double alpha, S x) {
  using T = TypeInfo<S>;
  if constexpr (IsInt<S>()) {
    uint64_t al = static_cast<uint64_t>(static_cast<int64_t>(alpha));
    return Wrap<S>(al * static_cast<uint64_t>(static_cast<int64_t>(x)));
  } else {
    return T::Down(static_cast<typename T::C>(alpha) * T::Up(x));
  }
}

cubridge_status CallBinary(const std::string& op, int dt, const void* a, const void* b, void* out,
                           size_t n, double zero) {
  if (op == "add") return cubridge_add(dt, a, b, out, n, nullptr);
  if (op == "sub") return cubridge_sub(dt, a, b, out, n, nullptr);
  if (op == "mul") return cubridge_mul(dt, a, b, out, n, nullptr);
  return cubridge_div(dt, a, b, out, n, zero, nullptr);
}

// One elementwise op on n elements placed in `mem` at element offset `off`.
template <class S>
void RunElementwise(const std::string& op, size_t n, Mem mem, size_t off) {
  const int dt = TypeInfo<S>::dtype;
  const size_t bytes = n * sizeof(S), ob = off * sizeof(S);
  std::string what = op + " " + Name<S>() + " n=" + std::to_string(n) + " " + MemName(mem) +
                     " offset=" + std::to_string(off);
  std::vector<S> a = Gen<S>(n, 1 + n), b = Gen<S>(n, 2 + n, op == "div"), want(n), got(n);
  const double alpha = IsInt<S>() ? -3.0 : 1.5, zero = IsInt<S>() ? 7.0 : -2.5;
  Buffer ba(mem, bytes, ob), bb(mem, bytes, ob), bo(mem, bytes, ob);
  ba.Upload(a.data(), bytes);
  bb.Upload(b.data(), bytes);
  cubridge_status st;
  Buffer* out = &bo;  // where the op writes its result
  if (op == "axpy") {
    for (size_t i = 0; i < n; ++i) want[i] = RefAxpy(alpha, a[i], b[i]);
    st = cubridge_axpy(dt, alpha, ba.get(), bb.get(), n, nullptr);
    out = &bb;
  } else if (op == "axpy_out") {
    for (size_t i = 0; i < n; ++i) want[i] = RefAxpy(alpha, a[i], b[i]);
    st = cubridge_axpy_out(dt, alpha, ba.get(), bb.get(), bo.get(), n, nullptr);
  } else if (op == "scale") {
    for (size_t i = 0; i < n; ++i) want[i] = RefScale(alpha, a[i]);
    st = cubridge_scale(dt, alpha, ba.get(), n, nullptr);
    out = &ba;
  } else if (op == "scale_out") {
    for (size_t i = 0; i < n; ++i) want[i] = RefScale(alpha, a[i]);
    st = cubridge_scale_out(dt, alpha, ba.get(), bo.get(), n, nullptr);
  } else if (op == "fill") {
    for (size_t i = 0; i < n; ++i)
      want[i] = TypeInfo<S>::Down(static_cast<typename TypeInfo<S>::C>(zero));
    st = cubridge_fill(dt, zero, bo.get(), n, nullptr);
  } else {
    for (size_t i = 0; i < n; ++i) want[i] = RefBinary(op, a[i], b[i], zero);
    st = CallBinary(op, dt, ba.get(), bb.get(), bo.get(), n, zero);
  }
  ASSERT_EQ(st, CUBRIDGE_OK) << what << ": " << cubridge_last_error();
  out->Download(got.data(), bytes);
  // The _out forms leave the operand that the in-place form writes as it was.
  auto expect_untouched = [&](Buffer& buf, const std::vector<S>& was, const char* name) {
    std::vector<S> now(n);
    buf.Download(now.data(), bytes);
    ExpectSame(now, was, what + " (" + name + " untouched)");
  };
  if (op == "axpy_out") expect_untouched(bb, b, "y");
  if (op == "scale_out") expect_untouched(ba, a, "x");
  EXPECT_STREQ(cubridge_last_error(), "");
  ExpectSame(got, want, what);
}

class ElementwiseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ElementwiseTest, AllDtypesSizesPlacements) {
  const std::string op = GetParam();
  ForEachDtype([&](auto tag) {
    using S = decltype(tag);
    for (size_t n : kSizes) {
      n = TestElements(n);
      for (Mem mem : {Mem::kHost, Mem::kDevice}) {
        for (size_t off : {0, 1}) RunElementwise<S>(op, n, mem, off);
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Ops, ElementwiseTest,
                         ::testing::Values("add", "sub", "mul", "div", "axpy", "axpy_out", "scale",
                                           "scale_out", "fill"));

// axpy rounds alpha * x before adding y, on every path: the GPU through
// __fmul_rn, the CPU loops compiled without FMA. (Gen's quarters make every
// product exact, so the suite above cannot tell.)
TEST(Elementwise, AxpyRoundsTheProductFirst) {
  const size_t n = 4099;
  const double alpha = 0.1;
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-1, 1);
  auto check = [&](auto tag, int dt) {
    using S = decltype(tag);
    std::vector<S> x(n), y(n), got(n), want(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = static_cast<S>(u(rng));
      y[i] = static_cast<S>(u(rng));
      want[i] = RefAxpy<S>(alpha, x[i], y[i]);
    }
    size_t fused = 0;  // elements where an FMA would round differently
    for (size_t i = 0; i < n; ++i) {
      fused += std::fma(static_cast<S>(alpha), x[i], y[i]) != want[i];
    }
    ASSERT_GT(fused, n / 20) << "the inputs must tell an FMA apart";
    for (Mem mem : {Mem::kHost, Mem::kDevice}) {
      const size_t bytes = n * sizeof(S);
      Buffer bx(mem, bytes, 0), by(mem, bytes, 0), bo(mem, bytes, 0);
      bx.Upload(x.data(), bytes);
      by.Upload(y.data(), bytes);
      ASSERT_EQ(cubridge_axpy_out(dt, alpha, bx.get(), by.get(), bo.get(), n, nullptr), CUBRIDGE_OK)
          << cubridge_last_error();
      bo.Download(got.data(), bytes);
      ExpectSame(got, want, std::string("axpy_out ") + Name<S>() + " " + MemName(mem));
      ASSERT_EQ(cubridge_axpy(dt, alpha, bx.get(), by.get(), n, nullptr), CUBRIDGE_OK)
          << cubridge_last_error();
      by.Download(got.data(), bytes);
      ExpectSame(got, want, std::string("axpy ") + Name<S>() + " " + MemName(mem));
    }
  };
  check(float{}, CUBRIDGE_FLOAT32);
  check(double{}, CUBRIDGE_FLOAT64);
}

// Pointers misaligned against each other (no common 16-byte alignment) take
// the scalar path; all misaligned alike take the vector path with a head.
TEST(Elementwise, MixedAlignments) {
  const size_t n = 100001;
  for (Mem mem : {Mem::kHost, Mem::kDevice}) {
    for (int oa = 0; oa < 4; ++oa) {
      for (int oo = 0; oo < 4; ++oo) {
        std::vector<float> a = Gen<float>(n, 3), b = Gen<float>(n, 4), got(n), want(n);
        for (size_t i = 0; i < n; ++i) want[i] = a[i] * b[i];
        Buffer ba(mem, n * 4, oa * 4), bb(mem, n * 4, 4), bo(mem, n * 4, oo * 4);
        ba.Upload(a.data(), n * 4);
        bb.Upload(b.data(), n * 4);
        ASSERT_EQ(cubridge_mul(CUBRIDGE_FLOAT32, ba.get(), bb.get(), bo.get(), n, nullptr),
                  CUBRIDGE_OK)
            << cubridge_last_error();
        bo.Download(got.data(), n * 4);
        ExpectSame(got, want, "mul offsets " + std::to_string(oa) + "/" + std::to_string(oo));
        // convert float32 -> float64 with the source one element off.
        std::vector<double> gd(n);
        Buffer bd(mem, n * 8, oo * 8);
        ASSERT_EQ(
            cubridge_convert(CUBRIDGE_FLOAT32, ba.get(), CUBRIDGE_FLOAT64, bd.get(), n, nullptr),
            CUBRIDGE_OK);
        bd.Download(gd.data(), n * 8);
        for (size_t i = 0; i < n; i += 101) ASSERT_EQ(gd[i], static_cast<double>(a[i]));
      }
    }
  }
}

// ---- aliasing -------------------------------------------------------------------

template <class S>
void RunAliasing(Mem mem) {
  const int dt = TypeInfo<S>::dtype;
  const size_t n = 1003, bytes = n * sizeof(S);
  std::vector<S> a = Gen<S>(n, 11), b = Gen<S>(n, 12), got(n), want(n);
  for (size_t i = 0; i < n; ++i) want[i] = RefBinary<S>("add", a[i], b[i], 0);
  {  // out == a
    Buffer ba(mem, bytes), bb(mem, bytes);
    ba.Upload(a.data(), bytes);
    bb.Upload(b.data(), bytes);
    ASSERT_EQ(cubridge_add(dt, ba.get(), bb.get(), ba.get(), n, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    ba.Download(got.data(), bytes);
    ExpectSame(got, want, std::string("out==a ") + Name<S>());
  }
  {  // out == b == a
    Buffer ba(mem, bytes);
    ba.Upload(a.data(), bytes);
    ASSERT_EQ(cubridge_add(dt, ba.get(), ba.get(), ba.get(), n, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    ba.Download(got.data(), bytes);
    for (size_t i = 0; i < n; ++i) want[i] = RefBinary<S>("add", a[i], a[i], 0);
    ExpectSame(got, want, std::string("out==a==b ") + Name<S>());
  }
  {  // axpy with x == y
    Buffer ba(mem, bytes);
    ba.Upload(a.data(), bytes);
    ASSERT_EQ(cubridge_axpy(dt, 2.0, ba.get(), ba.get(), n, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    ba.Download(got.data(), bytes);
    for (size_t i = 0; i < n; ++i) want[i] = RefAxpy<S>(2.0, a[i], a[i]);
    ExpectSame(got, want, std::string("axpy x==y ") + Name<S>());
  }
  {  // axpy_out and scale_out into x: one pass reads each x[i] before writing it
    Buffer ba(mem, bytes), bb(mem, bytes);
    ba.Upload(a.data(), bytes);
    bb.Upload(a.data(), bytes);
    ASSERT_EQ(cubridge_axpy_out(dt, 2.0, ba.get(), bb.get(), ba.get(), n, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    ba.Download(got.data(), bytes);
    for (size_t i = 0; i < n; ++i) want[i] = RefAxpy<S>(2.0, a[i], a[i]);
    ExpectSame(got, want, std::string("axpy_out out==x ") + Name<S>());
    ASSERT_EQ(cubridge_scale_out(dt, 2.0, bb.get(), bb.get(), n, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    bb.Download(got.data(), bytes);
    for (size_t i = 0; i < n; ++i) want[i] = RefScale<S>(2.0, a[i]);
    ExpectSame(got, want, std::string("scale_out out==x ") + Name<S>());
  }
  {  // partial overlap: rejected, named, nothing written
    Buffer ba(mem, bytes + 16 * sizeof(S)), bb(mem, bytes);
    S* base = static_cast<S*>(ba.get());
    EXPECT_EQ(cubridge_add(dt, base, bb.get(), base + 1, n, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cubridge_last_error()).find("overlap"), std::string::npos)
        << cubridge_last_error();
    EXPECT_NE(std::string(cubridge_last_error()).find("'a'"), std::string::npos);
    EXPECT_EQ(cubridge_axpy(dt, 1.0, base + 3, base, n, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(cubridge_axpy_out(dt, 1.0, bb.get(), base, base + 1, n, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cubridge_last_error()).find("'y'"), std::string::npos)
        << cubridge_last_error();
    EXPECT_EQ(cubridge_scale_out(dt, 1.0, base, base + 2, n, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(cubridge_convert(dt, base, dt, base + 2, n, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  }
}

TEST(Aliasing, ExactAliasWorksPartialOverlapRejected) {
  ForEachDtype([](auto tag) {
    for (Mem mem : {Mem::kHost, Mem::kDevice}) RunAliasing<decltype(tag)>(mem);
  });
}

TEST(Aliasing, ConvertInPlaceSameSize) {
  // float32 <-> int32 in place (same element size): exact alias is fine.
  std::vector<float> v = {1.5f, -2.5f, 3.0f, 1e10f};
  ASSERT_EQ(cubridge_convert(CUBRIDGE_FLOAT32, v.data(), CUBRIDGE_INT32, v.data(), 4, nullptr),
            CUBRIDGE_OK)
      << cubridge_last_error();
  int32_t got[4];
  memcpy(got, v.data(), 16);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], -2);
  EXPECT_EQ(got[2], 3);
  EXPECT_EQ(got[3], INT32_MAX);
  // Different element sizes over the same start: rejected.
  EXPECT_EQ(cubridge_convert(CUBRIDGE_FLOAT32, v.data(), CUBRIDGE_FLOAT64, v.data(), 2, nullptr),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
}

// ---- convert --------------------------------------------------------------------

template <class D, class S>
void RunConvert(Mem mem, size_t n) {
  // Small integers and halves: exact in every dtype, so every pair round-trips.
  std::vector<S> src(n);
  std::vector<D> want(n), got(n);
  for (size_t i = 0; i < n; ++i) {
    double x = (static_cast<int>(i % 201) - 100);
    if constexpr (IsInt<S>()) {
      src[i] = static_cast<S>(x);
    } else {
      x += (i % 2) * 0.5;  // x.5 truncates toward zero into ints
      src[i] = TypeInfo<S>::Down(static_cast<typename TypeInfo<S>::C>(x));
    }
    double v = AsDouble(src[i]);
    if constexpr (IsInt<D>()) {
      want[i] = static_cast<D>(std::trunc(v));
    } else {
      want[i] = TypeInfo<D>::Down(static_cast<typename TypeInfo<D>::C>(v));
    }
  }
  Buffer bs(mem, n * sizeof(S)), bd(mem, n * sizeof(D));
  bs.Upload(src.data(), n * sizeof(S));
  ASSERT_EQ(
      cubridge_convert(TypeInfo<S>::dtype, bs.get(), TypeInfo<D>::dtype, bd.get(), n, nullptr),
      CUBRIDGE_OK)
      << cubridge_last_error();
  bd.Download(got.data(), n * sizeof(D));
  ExpectSame(got, want, std::string("convert ") + Name<S>() + " -> " + Name<D>());
}

TEST(Convert, EveryPair) {
  ForEachDtype([](auto s) {
    ForEachDtype([](auto d) {
      for (Mem mem : {Mem::kHost, Mem::kDevice}) {
        for (size_t n : {size_t(0), size_t(1), size_t(33), size_t(100003)}) {
          RunConvert<decltype(d), decltype(s)>(mem, n);
        }
      }
    });
  });
}

TEST(Convert, SaturatesAndNaNToZero) {
  double src[] = {1e300, -1e300, NAN, -0.9, 2147483647.9, -2147483648.9};
  int32_t got[6];
  ASSERT_EQ(cubridge_convert(CUBRIDGE_FLOAT64, src, CUBRIDGE_INT32, got, 6, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(got[0], INT32_MAX);
  EXPECT_EQ(got[1], INT32_MIN);
  EXPECT_EQ(got[2], 0);
  EXPECT_EQ(got[3], 0);
  EXPECT_EQ(got[4], INT32_MAX);
  EXPECT_EQ(got[5], INT32_MIN);
}

// int64 -> bfloat16 rounds once, to nearest even: through a double rounded to
// nearest, a value just off a bfloat16 tie landed on it (2^62 + 2^54 + 1 became
// 2^62). Near 2^62 the bfloat16 step is 2^55, a double's 2^10.
TEST(Convert, Int64ToBFloat16RoundsOnce) {
  const int64_t p62 = int64_t{1} << 62, p54 = int64_t{1} << 54, p55 = p54 * 2;
  const std::vector<std::pair<int64_t, double>> cases = {
      {p62 + p54 + 1, std::ldexp(1.0, 62) + std::ldexp(1.0, 55)},      // above the tie: up
      {p62 + p54, std::ldexp(1.0, 62)},                                // the tie: to even
      {p62 + p54 - 1, std::ldexp(1.0, 62)},                            // below: down
      {p62 + 3 * p54 - 1, std::ldexp(1.0, 62) + std::ldexp(1.0, 55)},  // below: down
      {p62 + 3 * p54, std::ldexp(1.0, 62) + std::ldexp(1.0, 56)},      // the tie: to even
      {-(p62 + p54 + 1), -(std::ldexp(1.0, 62) + std::ldexp(1.0, 55))},
      {-(p62 + 3 * p54 - 1), -(std::ldexp(1.0, 62) + std::ldexp(1.0, 55))},
      {p62 + p55 + 1, std::ldexp(1.0, 62) + std::ldexp(1.0, 55)},
      {INT64_MAX, std::ldexp(1.0, 63)},
      {INT64_MIN, -std::ldexp(1.0, 63)},
      {(int64_t{1} << 53) + 1, std::ldexp(1.0, 53)},
  };
  const size_t n = cases.size();
  std::vector<int64_t> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = cases[i].first;
  for (Mem mem : {Mem::kHost, Mem::kDevice}) {
    Buffer bs(mem, n * sizeof(int64_t)), bd(mem, n * sizeof(BF16));
    bs.Upload(src.data(), n * sizeof(int64_t));
    ASSERT_EQ(cubridge_convert(CUBRIDGE_INT64, bs.get(), CUBRIDGE_BFLOAT16, bd.get(), n, nullptr),
              CUBRIDGE_OK)
        << cubridge_last_error();
    std::vector<BF16> got(n);
    bd.Download(got.data(), n * sizeof(BF16));
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(AsDouble(got[i]), cases[i].second) << MemName(mem) << ": " << cases[i].first;
    }
  }
}

// ---- reductions -------------------------------------------------------------------

// ExpectSumDot: cubridge_sum of bx (holding x) and cubridge_dot of bx and by (holding y)
// equal the host's sums exactly: wrapping int64 for integer dtypes, double for the others
// (the Gen samples are quarters, so their double sums are exact).
template <class S>
void ExpectSumDot(Buffer& bx, Buffer& by, const std::vector<S>& x, const std::vector<S>& y,
                  const std::string& what) {
  const int dt = TypeInfo<S>::dtype;
  const size_t n = x.size();
  using Acc = std::conditional_t<IsInt<S>(), int64_t, double>;
  Acc s = 0, d = 0;
  for (size_t i = 0; i < n; ++i) {
    if constexpr (IsInt<S>()) {
      s = static_cast<int64_t>(static_cast<uint64_t>(s) + static_cast<uint64_t>(int64_t{x[i]}));
      d = static_cast<int64_t>(static_cast<uint64_t>(d) + static_cast<uint64_t>(int64_t{x[i]}) *
                                                              static_cast<uint64_t>(int64_t{y[i]}));
    } else {
      s += AsDouble(x[i]);
      d += AsDouble(x[i]) * AsDouble(y[i]);
    }
  }
  Acc got = 1;
  ASSERT_EQ(cubridge_sum(dt, bx.get(), n, &got, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(got, s) << "sum " << what;
  ASSERT_EQ(cubridge_dot(dt, bx.get(), by.get(), n, &got, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(got, d) << "dot " << what;
}

template <class S>
void RunReductions(size_t n, Mem mem, size_t off) {
  const int dt = TypeInfo<S>::dtype;
  const size_t bytes = n * sizeof(S), ob = off * sizeof(S);
  std::string what = std::string(Name<S>()) + " n=" + std::to_string(n) + " " + MemName(mem) +
                     " offset=" + std::to_string(off);
  std::vector<S> x = Gen<S>(n, 100 + n), y = Gen<S>(n, 200 + n);
  Buffer bx(mem, bytes, ob), by(mem, bytes, ob);
  bx.Upload(x.data(), bytes);
  by.Upload(y.data(), bytes);
  ASSERT_EQ(cubridge_sum_dtype(dt), IsInt<S>() ? CUBRIDGE_INT64 : CUBRIDGE_FLOAT64);
  ASSERT_NO_FATAL_FAILURE(ExpectSumDot(bx, by, x, y, what));
  if (n == 0) {
    S r;
    EXPECT_EQ(cubridge_min(dt, bx.get(), n, &r, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(cubridge_max(dt, bx.get(), n, &r, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
    return;
  }
  S mn = x[0], mx = x[0];
  for (size_t i = 1; i < n; ++i) {
    if constexpr (IsInt<S>()) {
      mn = std::min(mn, x[i]);
      mx = std::max(mx, x[i]);
    } else {
      if (AsDouble(x[i]) < AsDouble(mn)) mn = x[i];
      if (AsDouble(x[i]) > AsDouble(mx)) mx = x[i];
    }
  }
  S got;
  ASSERT_EQ(cubridge_min(dt, bx.get(), n, &got, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_TRUE(SameValue(got, mn)) << "min " << what << " got " << AsDouble(got);
  ASSERT_EQ(cubridge_max(dt, bx.get(), n, &got, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_TRUE(SameValue(got, mx)) << "max " << what << " got " << AsDouble(got);
}

TEST(Reduce, AllDtypesSizesPlacements) {
  ForEachDtype([](auto tag) {
    for (size_t n : kSizes) {
      n = TestElements(n);
      for (Mem mem : {Mem::kHost, Mem::kDevice}) {
        for (size_t off : {0, 1}) RunReductions<decltype(tag)>(n, mem, off);
      }
    }
  });
}

// Sum and dot (on the GPU: the single-pass kernel) with x and y at different alignments (the
// scalar path) and at the same one (vector body with a scalar head), and sizes
// past one wave of blocks (the grid-stride loop), exact against the host.
template <class S>
void RunSumDotPlacements(size_t n, size_t xoff, size_t yoff) {
  const size_t bytes = n * sizeof(S);
  std::vector<S> x = Gen<S>(n, 7 + n), y = Gen<S>(n, 8 + n);
  Buffer bx(Mem::kDevice, bytes, xoff * sizeof(S)), by(Mem::kDevice, bytes, yoff * sizeof(S));
  bx.Upload(x.data(), bytes);
  by.Upload(y.data(), bytes);
  std::string what = std::string(Name<S>()) + " n=" + std::to_string(n) +
                     " offsets=" + std::to_string(xoff) + "," + std::to_string(yoff);
  ExpectSumDot(bx, by, x, y, what);
}

TEST(Reduce, DeviceAlignmentsAndManyBlocks) {
  for (size_t n : {size_t{17}, TestElements(5000003)}) {
    for (auto [xo, yo] : {std::pair<size_t, size_t>{0, 0}, {1, 1}, {0, 1}, {3, 2}}) {
      RunSumDotPlacements<float>(n, xo, yo);
      RunSumDotPlacements<double>(n, xo, yo);
      RunSumDotPlacements<int32_t>(n, xo, yo);
      RunSumDotPlacements<Half>(n, xo, yo);
    }
  }
  RunSumDotPlacements<Half>(TestElements(20000001), 5, 5);  // 8-element vectors past one wave
}

TEST(Reduce, FloatSumAccumulatesInDouble) {
  // 2^24 + 1 + 1 + ... is lost in float32 accumulation, kept in float64.
  std::vector<float> x(1001, 1.0f);
  x[0] = 16777216.0f;
  double got = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, x.data(), x.size(), &got, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(got, 16777216.0 + 1000.0);
}

TEST(Reduce, DeterministicRunToRun) {
  for (Mem mem : {Mem::kHost, Mem::kDevice}) {
    const size_t n = TestElements(3000017);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(n);
    for (auto& v : x) v = u(rng) * 1e3f;
    Buffer bx(mem, n * 4);
    bx.Upload(x.data(), n * 4);
    double first = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, bx.get(), n, &first, nullptr), CUBRIDGE_OK);
    for (int r = 0; r < 5; ++r) {
      double again = 0;
      ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, bx.get(), n, &again, nullptr), CUBRIDGE_OK);
      EXPECT_EQ(memcmp(&first, &again, 8), 0) << first << " vs " << again;
      ASSERT_EQ(cubridge_dot(CUBRIDGE_FLOAT32, bx.get(), bx.get(), n, &again, nullptr),
                CUBRIDGE_OK);
    }
    long double ref = 0;
    for (float v : x) ref += v;
    EXPECT_NEAR(first, static_cast<double>(ref), 1e-6 * n);
  }
}

// A dot of host arrays (CPU threads on either backend) adds its products in
// 16 lanes folded pairwise, per block of 16384, blocks in order (cpu_dot.h):
// the same bits on every machine (AVX2 or not) and for any number of threads.
template <class T>
double DotInLanes(const std::vector<T>& x, const std::vector<T>& y) {
  const size_t block = 16384;
  double total = 0;
  for (size_t b = 0; b < x.size(); b += block) {
    const size_t end = std::min(x.size(), b + block), m = (end - b) / 16 * 16;
    double lane[16] = {};
    for (size_t i = 0; i < end - b; ++i) {
      lane[i < m ? i % 16 : 0] += static_cast<double>(x[b + i]) * static_cast<double>(y[b + i]);
    }
    for (int w = 8; w > 0; w /= 2) {
      for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
    }
    total += lane[0];
  }
  return total;
}

template <class T>
void ExpectDotInLanes(int dtype) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<T> u(-1, 1);
  for (size_t n : {size_t(1), size_t(15), size_t(17), size_t(1000), size_t(16384 * 3 + 7)}) {
    std::vector<T> x(n), y(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = u(rng);
      y[i] = u(rng);
    }
    double got = 0;
    ASSERT_EQ(cubridge_dot(dtype, x.data(), y.data(), n, &got, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    const double want = DotInLanes(x, y);
    EXPECT_EQ(memcmp(&got, &want, 8), 0) << "n=" << n << ": " << got << " vs " << want;
  }
}

TEST(Reduce, HostDotIsTheSameOnEveryMachine) {
  ExpectDotInLanes<float>(CUBRIDGE_FLOAT32);
  ExpectDotInLanes<double>(CUBRIDGE_FLOAT64);
}

TEST(Reduce, MinMaxPropagateNaN) {
  std::vector<double> x = {3, 1, NAN, -7, 9};
  double r = 0;
  ASSERT_EQ(cubridge_min(CUBRIDGE_FLOAT64, x.data(), x.size(), &r, nullptr), CUBRIDGE_OK);
  EXPECT_TRUE(std::isnan(r));
  ASSERT_EQ(cubridge_max(CUBRIDGE_FLOAT64, x.data(), x.size(), &r, nullptr), CUBRIDGE_OK);
  EXPECT_TRUE(std::isnan(r));
  x[2] = -INFINITY;
  ASSERT_EQ(cubridge_min(CUBRIDGE_FLOAT64, x.data(), x.size(), &r, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(r, -INFINITY);
}

// Host arrays reduce on CPU threads in vector lanes (cpu_minmax.h): a NaN or
// the extreme in any lane, vector or the tail is seen.
template <class T>
void ExpectMinMaxSeeEveryPosition(int dtype) {
  const size_t n = 64 * 4 + 37;  // four AVX-512 steps of floats, and a tail
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<T>(i % 17) - 8;
  for (size_t p = 0; p < n; ++p) {
    const T keep = x[p];
    T mn = 0, mx = 0;
    x[p] = -100;
    ASSERT_EQ(cubridge_min(dtype, x.data(), n, &mn, nullptr), CUBRIDGE_OK);
    x[p] = 100;
    ASSERT_EQ(cubridge_max(dtype, x.data(), n, &mx, nullptr), CUBRIDGE_OK);
    EXPECT_EQ(mn, -100) << "min at " << p;
    EXPECT_EQ(mx, 100) << "max at " << p;
    x[p] = NAN;
    ASSERT_EQ(cubridge_min(dtype, x.data(), n, &mn, nullptr), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_max(dtype, x.data(), n, &mx, nullptr), CUBRIDGE_OK);
    EXPECT_TRUE(std::isnan(mn) && std::isnan(mx)) << "NaN at " << p;
    x[p] = keep;
  }
}

TEST(Reduce, MinMaxSeeEveryPosition) {
  ExpectMinMaxSeeEveryPosition<float>(CUBRIDGE_FLOAT32);
  ExpectMinMaxSeeEveryPosition<double>(CUBRIDGE_FLOAT64);
}

// ---- integer and division edge cases ------------------------------------------

TEST(Elementwise, IntegerWrapAndDivisionEdges) {
  int32_t a[] = {INT32_MAX, INT32_MIN, 7, -7, 5, INT32_MIN};
  int32_t b[] = {1, -1, 0, 2, -1, 1};
  int32_t out[6];
  ASSERT_EQ(cubridge_add(CUBRIDGE_INT32, a, b, out, 6, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(out[0], INT32_MIN);
  ASSERT_EQ(cubridge_div(CUBRIDGE_INT32, a, b, out, 6, 42, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(out[0], INT32_MAX);
  EXPECT_EQ(out[1], INT32_MIN);  // INT32_MIN / -1 wraps
  EXPECT_EQ(out[2], 42);         // caller's value for x / 0
  EXPECT_EQ(out[3], -3);         // truncates toward zero
  EXPECT_EQ(out[4], -5);
  double fa[] = {1, -1, 0, 6}, fb[] = {0, 0, 0, -0.0}, fo[4];
  ASSERT_EQ(cubridge_div(CUBRIDGE_FLOAT64, fa, fb, fo, 4, NAN, nullptr), CUBRIDGE_OK);
  for (double v : fo) EXPECT_TRUE(std::isnan(v));
}

TEST(Elementwise, IntegerAlphaMustBeWhole) {
  int64_t x[2] = {1, 2}, y[2] = {3, 4};
  ExpectError(cubridge_axpy(CUBRIDGE_INT64, 0.5, x, y, 2, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "'alpha'");
  EXPECT_EQ(cubridge_scale(CUBRIDGE_INT32, NAN, x, 2, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(cubridge_axpy(CUBRIDGE_INT64, -2, x, y, 2, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 0);
}

}  // namespace
}  // namespace cubridge_test
