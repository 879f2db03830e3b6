// cubridge's CUDA-less CUB (--@cubridge//toolchains/cuda:mode=none): device
// reductions compile, and fail with cudaErrorNoDevice if ever called.
#ifndef CUBRIDGE_NONE_CUB_DEVICE_REDUCE_CUH_
#define CUBRIDGE_NONE_CUB_DEVICE_REDUCE_CUH_

#include <cuda_runtime_api.h>

namespace cub {

struct DeviceReduce {
  template <class... Args>
  static cudaError_t Reduce(Args&&...) {
    return cudaErrorNoDevice;
  }
  template <class... Args>
  static cudaError_t Sum(Args&&...) {
    return cudaErrorNoDevice;
  }
  template <class... Args>
  static cudaError_t TransformReduce(Args&&...) {
    return cudaErrorNoDevice;
  }
};

}  // namespace cub

#endif  // CUBRIDGE_NONE_CUB_DEVICE_REDUCE_CUH_
