// cubridge's CUDA-less cuda_fp16.h (--@cubridge//toolchains/cuda:mode=none):
// __half as IEEE binary16 storage with correctly rounded host conversions.
#ifndef CUBRIDGE_NONE_CUDA_FP16_H_
#define CUBRIDGE_NONE_CUDA_FP16_H_

#include "cubridge_none_float.h"

struct __half {
  unsigned short __x;
};

inline __half __double2half(double v) {
  return __half{cubridge_none::round_bits(v, cubridge_none::kHalf)};
}
inline __half __float2half_rn(float v) { return __double2half(v); }
inline __half __float2half(float v) { return __double2half(v); }
inline float __half2float(__half h) {
  return static_cast<float>(cubridge_none::from_bits(h.__x, cubridge_none::kHalf));
}

#endif  // CUBRIDGE_NONE_CUDA_FP16_H_
