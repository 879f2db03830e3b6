"""Public API of cubridge's CUDA rules.

    load("@cubridge//toolchains/cuda:defs.bzl", "cuda_library")
"""

load("//toolchains/cuda/private:cuda_library.bzl", _cuda_library = "cuda_library")
load("//toolchains/cuda/private:toolkit.bzl", _CudaToolkitInfo = "CudaToolkitInfo")

cuda_library = _cuda_library
CudaToolkitInfo = _CudaToolkitInfo
