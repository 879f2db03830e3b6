// cubridge's CUDA-less cuda_fp16.h (--@cubridge//toolchains/cuda:mode=none):
// __half as IEEE binary16 storage with correctly rounded host conversions.
#ifndef CUBRIDGE_NONE_CUDA_FP16_H_
#define CUBRIDGE_NONE_CUDA_FP16_H_

#include "cubridge_none_float.h"

CUBRIDGE_NONE_FLOAT16_TYPE(__half, half, kHalf)

#endif  // CUBRIDGE_NONE_CUDA_FP16_H_
