// 16-bit floats for cubridge's CUDA-less headers: round-to-nearest-even from
// double (one rounding, so float and double sources agree with CUDA's _rn
// conversions) and exact widening. NaN becomes 0x7fff, as CUDA returns.
#ifndef CUBRIDGE_NONE_FLOAT_H_
#define CUBRIDGE_NONE_FLOAT_H_

#include <math.h>

namespace cubridge_none {

struct Format {
  int mantissa_bits;  // stored fraction bits
  int bias;           // exponent bias
  int max_exponent;   // largest unbiased exponent of a finite value
};
constexpr Format kHalf{10, 15, 15};
constexpr Format kBfloat16{7, 127, 127};

inline unsigned short round_bits(double v, Format f) {
  if (v != v) return 0x7fff;
  const unsigned short sign = signbit(v) ? 0x8000 : 0;
  const double a = fabs(v);
  const unsigned short inf = static_cast<unsigned short>((2 * f.bias + 1) << f.mantissa_bits);
  // Halfway between the largest finite value and 2^(max_exponent+1) rounds up.
  if (a >= ldexp(2.0 - ldexp(1.0, -f.mantissa_bits - 1), f.max_exponent)) return sign | inf;
  const int min_exponent = 1 - f.bias;
  if (a < ldexp(1.0, min_exponent)) {  // subnormal (or rounds up to the smallest normal)
    double q = nearbyint(ldexp(a, f.mantissa_bits - min_exponent));
    return sign | static_cast<unsigned short>(q);
  }
  int e = 0;
  frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  const int exponent = e - 1;
  const double q = nearbyint(ldexp(a, f.mantissa_bits - exponent));  // in [2^m, 2^(m+1)]
  const unsigned q_bits = static_cast<unsigned>(q) - (1u << f.mantissa_bits);
  return sign | static_cast<unsigned short>(
                    (static_cast<unsigned>(exponent + f.bias) << f.mantissa_bits) + q_bits);
}

inline double from_bits(unsigned short bits, Format f) {
  const bool negative = bits & 0x8000;
  const unsigned exponent = (bits & 0x7fff) >> f.mantissa_bits;
  const unsigned fraction = bits & ((1u << f.mantissa_bits) - 1);
  double a;
  if (exponent == static_cast<unsigned>(2 * f.bias + 1)) {
    a = fraction ? NAN : INFINITY;
  } else if (exponent == 0) {
    a = ldexp(static_cast<double>(fraction), 1 - f.bias - f.mantissa_bits);
  } else {
    a = ldexp(static_cast<double>(fraction | (1u << f.mantissa_bits)),
              static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  }
  return negative ? -a : a;
}

}  // namespace cubridge_none

// Declares the storage type TYPE of format FORMAT and CUDA's conversions for
// it, named after SUFFIX as in NVIDIA's headers: __double2SUFFIX,
// __float2SUFFIX_rn, __float2SUFFIX, __SUFFIX2float.
#define CUBRIDGE_NONE_FLOAT16_TYPE(TYPE, SUFFIX, FORMAT)                               \
  struct TYPE {                                                                        \
    unsigned short __x;                                                                \
  };                                                                                   \
  inline TYPE __double2##SUFFIX(double v) {                                            \
    return TYPE{cubridge_none::round_bits(v, cubridge_none::FORMAT)};                  \
  }                                                                                    \
  inline TYPE __float2##SUFFIX##_rn(float v) { return __double2##SUFFIX(v); }          \
  inline TYPE __float2##SUFFIX(float v) { return __double2##SUFFIX(v); }               \
  inline float __##SUFFIX##2float(TYPE h) {                                            \
    return static_cast<float>(cubridge_none::from_bits(h.__x, cubridge_none::FORMAT)); \
  }

#endif  // CUBRIDGE_NONE_FLOAT_H_
