"""Public API of cubridge's CUDA rules.

    load("@cubridge//toolchains/cuda:defs.bzl", "cuda_library")

CUDA libraries: @cubridge//toolchains/cuda:cublas (and :cufft, :curand,
:cusolver, :cusparse, :nvjitlink, :nvrtc, :nvtx) as deps; cuda_runtime_libs to
find them at run time from Go binaries and Python extensions;
cuda_requirements(["cublas", ...]) for the Requires-Dist of a wheel (a select()
on --@cubridge//toolchains/cuda:version; CUDA_REQUIREMENTS / CUDA12_REQUIREMENTS
are the plain tables). cuda_library(rdc = True) and one
cuda_device_link per final link for relocatable device code.
requires_cuda_toolkit() for the target_compatible_with of targets that need
nvcc, skipped in mode=none.
"""

load("//toolchains/cuda/private:compatibility.bzl", _requires_cuda_toolkit = "requires_cuda_toolkit")
load("//toolchains/cuda/private:cuda_library.bzl", _cuda_library = "cuda_library")
load("//toolchains/cuda/private:rdc.bzl", _CudaRdcInfo = "CudaRdcInfo", _cuda_device_link = "cuda_device_link")
load(
    "//toolchains/cuda/private:requirements.bzl",
    _CUDA12_REQUIREMENTS = "CUDA12_REQUIREMENTS",
    _CUDA_REQUIREMENTS = "CUDA_REQUIREMENTS",
    _cuda_requirements = "cuda_requirements",
)
load("//toolchains/cuda/private:runtime_libs.bzl", _cuda_runtime_libs = "cuda_runtime_libs")
load("//toolchains/cuda/private:toolkit.bzl", _CudaToolkitInfo = "CudaToolkitInfo")

cuda_library = _cuda_library
CudaToolkitInfo = _CudaToolkitInfo
cuda_runtime_libs = _cuda_runtime_libs
CUDA_REQUIREMENTS = _CUDA_REQUIREMENTS
CUDA12_REQUIREMENTS = _CUDA12_REQUIREMENTS
cuda_requirements = _cuda_requirements
cuda_device_link = _cuda_device_link
CudaRdcInfo = _CudaRdcInfo
requires_cuda_toolkit = _requires_cuda_toolkit
