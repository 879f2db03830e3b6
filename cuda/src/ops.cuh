// Kernel math, written once: __host__ __device__ functors used by both the GPU
// kernels and the CPU loops. Floating types compute in their own precision
// (float16/bfloat16 in float); integer types wrap around on overflow.
#ifndef CUBRIDGE_SRC_OPS_CUH_
#define CUBRIDGE_SRC_OPS_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <cuda/std/limits>
#include <type_traits>

#include "dtypes.h"

#define CB_HD __host__ __device__ __forceinline__

namespace cubridge {

// Placeholder for "no input" in the elementwise machinery: no bytes, no loads.
struct None {};

template <class T>
constexpr size_t size_of() {
  return std::is_same<T, None>::value ? 0 : sizeof(T);
}

// Bytes of the widest of an op's element types (None counts 0).
template <class TO, class TA, class TB>
constexpr size_t widest() {
  return std::max({size_of<TO>(), size_of<TA>(), size_of<TB>()});
}

template <class T>
CB_HD T load1(const T* p, size_t i) {
  return p[i];
}
CB_HD None load1(const None*, size_t) { return None{}; }

// ---- arithmetic types -------------------------------------------------

// Compute type: float for the 16-bit floats, the type itself otherwise.
template <class T>
struct Arith {
  using C = T;
  static CB_HD C up(T x) { return x; }
  static CB_HD T down(C c) { return c; }
};
template <>
struct Arith<__half> {
  using C = float;
  static CB_HD C up(__half x) { return __half2float(x); }
  static CB_HD __half down(float c) { return __float2half_rn(c); }
};
template <>
struct Arith<__nv_bfloat16> {
  using C = float;
  static CB_HD C up(__nv_bfloat16 x) { return __bfloat162float(x); }
  static CB_HD __nv_bfloat16 down(float c) { return __float2bfloat16_rn(c); }
};

template <class T>
constexpr bool is_int_v = std::is_integral<T>::value;

// Rounded multiply and add that the compiler may not contract into an FMA, so
// the CPU and GPU backends give bit-identical results: the _rn intrinsic on
// the device, the plain operator on the host.
#ifdef __CUDA_ARCH__
#define CB_ROUNDED(NAME, T, OP, INTRINSIC) \
  CB_HD T NAME(T a, T b) { return INTRINSIC(a, b); }
#else
#define CB_ROUNDED(NAME, T, OP, INTRINSIC) \
  CB_HD T NAME(T a, T b) { return a OP b; }
#endif
CB_ROUNDED(mul_rn, float, *, __fmul_rn)
CB_ROUNDED(mul_rn, double, *, __dmul_rn)
CB_ROUNDED(add_rn, float, +, __fadd_rn)
CB_ROUNDED(add_rn, double, +, __dadd_rn)
#undef CB_ROUNDED

// ---- conversions ------------------------------------------------------

// Float -> integer: truncate toward zero, saturate, NaN -> 0.
template <class I, class F>
CB_HD I float_to_int(F f) {
  if (f != f) return 0;
  using U = typename std::make_unsigned<I>::type;
  const F hi = static_cast<F>(static_cast<U>(1) << (sizeof(I) * 8 - 1));  // 2^(bits-1)
  if (f >= hi) return cuda::std::numeric_limits<I>::max();
  if (f <= -hi) return cuda::std::numeric_limits<I>::min();
  return static_cast<I>(f);
}

// An int64 as a double rounded to odd: exact, or else the neighbour of the
// integer whose last bit is 1. Rounding that once more to a type of 8 bits of
// precision (bfloat16) gives the integer correctly rounded, where a double
// rounded to nearest can land on a tie the integer was not on.
CB_HD double int64_to_double_odd(int64_t v) {
  const double d = static_cast<double>(v);
  // d >= 2^63 (no int64) only when v rounded up to it.
  const bool above = d >= 9223372036854775808.0 || static_cast<int64_t>(d) > v;
  if (!above && static_cast<int64_t>(d) == v) return d;
  int64_t bits;
  memcpy(&bits, &d, sizeof bits);
  if (bits & 1) return d;
  const double inf = cuda::std::numeric_limits<double>::infinity();
  return nextafter(d, above ? -inf : inf);  // the neighbour on v's side
}

// Any table type to any table type. Float -> int truncates (saturating, NaN
// -> 0); int -> int wraps; everything else rounds to nearest.
template <class To, class From>
CB_HD To convert_value(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<From, __half>::value ||
                       std::is_same<From, __nv_bfloat16>::value) {
    return convert_value<To, float>(Arith<From>::up(v));
  } else if constexpr (std::is_same<To, __half>::value) {
    if constexpr (std::is_same<From, float>::value)
      return __float2half_rn(v);
    else
      return __double2half(static_cast<double>(v));
  } else if constexpr (std::is_same<To, __nv_bfloat16>::value) {
    if constexpr (std::is_same<From, float>::value)
      return __float2bfloat16_rn(v);
    else if constexpr (std::is_same<From, int64_t>::value)
      return __double2bfloat16(int64_to_double_odd(v));
    else
      return __double2bfloat16(static_cast<double>(v));
  } else if constexpr (is_int_v<To> && !is_int_v<From>) {
    return float_to_int<To, From>(v);
  } else if constexpr (is_int_v<To> && is_int_v<From>) {
    using U = typename std::make_unsigned<To>::type;
    return static_cast<To>(static_cast<U>(v));
  } else {
    return static_cast<To>(v);
  }
}

// ---- elementwise functors: TOut operator()(A a, B b) -------------------

template <class T>
struct AddOp {
  CB_HD T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      using A = Arith<T>;
      return A::down(add_rn(A::up(a), A::up(b)));
    }
  }
};

template <class T>
struct SubOp {
  CB_HD T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
    } else {
      using A = Arith<T>;
      return A::down(A::up(a) - A::up(b));
    }
  }
};

template <class T>
struct MulOp {
  CB_HD T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      using A = Arith<T>;
      return A::down(mul_rn(A::up(a), A::up(b)));
    }
  }
};

// c ? a : b through bit masks. GCC keeps a loop scalar when a ?: picks the
// result of a division (it may trap, so it is not computed where unused): f32
// div of 1e4 on the CPU took 10.8 us against NumPy's 2.3. Here both are
// computed and the loop vectorises.
template <class T>
CB_HD T select_bits(bool c, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
  static_assert(sizeof(T) == sizeof(U), "select_bits: 2, 4 or 8 bytes");
  U ua, ub;
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  const U keep = static_cast<U>(U(0) - static_cast<U>(c));
  const U r = static_cast<U>((ua & keep) | (ub & static_cast<U>(~keep)));
  T t;
  memcpy(static_cast<void*>(&t), &r, sizeof t);  // T may be __half, a class (-Wclass-memaccess)
  return t;
}

// b != 0 ? a / b : zero (integers truncate; INT_MIN / -1 wraps to INT_MIN).
template <class T>
struct DivOp {
  T zero;
  CB_HD T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      if (b == 0) return zero;
      if (b == -1) return static_cast<T>(static_cast<U>(0) - static_cast<U>(a));
      return a / b;
    } else {
      using A = Arith<T>;
      typename A::C cb = A::up(b);
      return select_bits(cb != 0, A::down(A::up(a) / cb), zero);
    }
  }
};

// Scalar parameter type of axpy/scale: the compute type for floats, int64
// (already checked to be a whole number) for integers.
template <class T>
using ScalarOf = typename std::conditional<is_int_v<T>, T, typename Arith<T>::C>::type;

// y = alpha * x + y
template <class T>
struct AxpyOp {
  ScalarOf<T> alpha;
  CB_HD T operator()(T x, T y) const {
    if constexpr (is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      return static_cast<T>(static_cast<U>(alpha) * static_cast<U>(x) + static_cast<U>(y));
    } else {
      using A = Arith<T>;
      return A::down(add_rn(mul_rn(alpha, A::up(x)), A::up(y)));
    }
  }
};

// x = alpha * x
template <class T>
struct ScaleOp {
  ScalarOf<T> alpha;
  CB_HD T operator()(T x, None) const {
    if constexpr (is_int_v<T>) {
      using U = typename std::make_unsigned<T>::type;
      return static_cast<T>(static_cast<U>(alpha) * static_cast<U>(x));
    } else {
      using A = Arith<T>;
      return A::down(mul_rn(alpha, A::up(x)));
    }
  }
};

template <class T>
struct FillOp {
  T value;
  CB_HD T operator()(None, None) const { return value; }
};

template <class To, class From>
struct ConvertOp {
  CB_HD To operator()(From v, None) const { return convert_value<To, From>(v); }
};

// ---- reductions ---------------------------------------------------------

// Accumulator of sum/dot: double for floats, int64 (wrapping) for integers.
template <class T>
using AccOf = typename std::conditional<is_int_v<T>, int64_t, double>::type;

template <class Acc>
struct AccAdd {
  CB_HD Acc operator()(Acc a, Acc b) const {
    if constexpr (is_int_v<Acc>) {
      return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    } else {
      return add_rn(a, b);
    }
  }
};

template <class T>
struct ToAcc {
  CB_HD AccOf<T> operator()(T v) const {
    if constexpr (is_int_v<T>)
      return static_cast<AccOf<T>>(v);
    else
      return static_cast<double>(Arith<T>::up(v));
  }
};

template <class T>
CB_HD AccOf<T> acc_mul(T x, T y) {
  if constexpr (is_int_v<T>) {
    return static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(x)) *
                                static_cast<uint64_t>(static_cast<int64_t>(y)));
  } else {
    return mul_rn(static_cast<double>(Arith<T>::up(x)), static_cast<double>(Arith<T>::up(y)));
  }
}

// Min/max compare in MinMaxOf<T> (float for the 16-bit floats); NaN wins.
template <class T>
using MinMaxOf = typename Arith<T>::C;

template <class V>
struct MinOp {
  CB_HD V operator()(V a, V b) const {
    if (a != a) return a;
    if (b != b) return b;
    return b < a ? b : a;
  }
};
template <class V>
struct MaxOp {
  CB_HD V operator()(V a, V b) const {
    if (a != a) return a;
    if (b != b) return b;
    return b > a ? b : a;
  }
};

template <class V>
CB_HD V min_identity() {
  if constexpr (is_int_v<V>)
    return cuda::std::numeric_limits<V>::max();
  else
    return cuda::std::numeric_limits<V>::infinity();
}
template <class V>
CB_HD V max_identity() {
  if constexpr (is_int_v<V>)
    return cuda::std::numeric_limits<V>::lowest();
  else
    return -cuda::std::numeric_limits<V>::infinity();
}

template <class T>
struct ToMinMax {
  CB_HD MinMaxOf<T> operator()(T v) const { return Arith<T>::up(v); }
};

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_OPS_CUH_
