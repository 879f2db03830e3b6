// cubridge's CUDA-less cuda_bf16.h (--@cubridge//toolchains/cuda:mode=none):
// __nv_bfloat16 as bfloat16 storage with correctly rounded host conversions.
#ifndef CUBRIDGE_NONE_CUDA_BF16_H_
#define CUBRIDGE_NONE_CUDA_BF16_H_

#include "cubridge_none_float.h"

CUBRIDGE_NONE_FLOAT16_TYPE(__nv_bfloat16, bfloat16, kBfloat16)

#endif  // CUBRIDGE_NONE_CUDA_BF16_H_
