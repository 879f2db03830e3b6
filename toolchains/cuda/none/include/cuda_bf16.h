// cubridge's CUDA-less cuda_bf16.h (--@cubridge//toolchains/cuda:mode=none):
// __nv_bfloat16 as bfloat16 storage with correctly rounded host conversions.
#ifndef CUBRIDGE_NONE_CUDA_BF16_H_
#define CUBRIDGE_NONE_CUDA_BF16_H_

#include "cubridge_none_float.h"

struct __nv_bfloat16 {
  unsigned short __x;
};

inline __nv_bfloat16 __double2bfloat16(double v) {
  return __nv_bfloat16{cubridge_none::round_bits(v, cubridge_none::kBfloat16)};
}
inline __nv_bfloat16 __float2bfloat16_rn(float v) { return __double2bfloat16(v); }
inline __nv_bfloat16 __float2bfloat16(float v) { return __double2bfloat16(v); }
inline float __bfloat162float(__nv_bfloat16 h) {
  return static_cast<float>(cubridge_none::from_bits(h.__x, cubridge_none::kBfloat16));
}

#endif  // CUBRIDGE_NONE_CUDA_BF16_H_
