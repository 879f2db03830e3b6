"""Public API of cubridge's CUDA layer over rules_cuda.

    load("@cubridge//toolchains/cuda:defs.bzl", "cuda_library")

cuda_library, cuda_objects: rules_cuda's, or, with --@rules_cuda//cuda:enable=false,
the same .cu sources compiled as C++ for the CPU backend (no toolkit needed).
cuda_device_code: the PTX, cubins and fatbins of CUDA sources (output groups).
CUDA libraries: rules_cuda's @cuda//:cublas (and :cufft, :curand, :cusolver,
:cusparse, :nvjitlink, :nvrtc, :nvtx) from cubridge's toolkit, and
@cubridge//toolchains/cuda:cublas (...) which adds the run-time search paths of
the NVIDIA wheels' layout; cuda_runtime_libs lays the libraries out so beside
Go binaries and Python extensions in bazel-bin. cuda_requirements(["cublas",
...]) for the Requires-Dist of a wheel, for the CUDA major built
(CUDA_REQUIREMENTS / CUDA12_REQUIREMENTS are the plain tables); NCCL_REQUIREMENT
for NCCL. Relocatable
device code is rules_cuda's: cuda_objects(rdc = True) deps of one
cuda_library(rdc = True), which device-links them.
"""

load("//toolchains/cuda/private:cuda_library.bzl", _cuda_library = "cuda_library", _cuda_objects = "cuda_objects")
load("//toolchains/cuda/private:device_code.bzl", _cuda_device_code = "cuda_device_code")
load(
    "//toolchains/cuda/private:requirements.bzl",
    _CUDA12_REQUIREMENTS = "CUDA12_REQUIREMENTS",
    _CUDA_REQUIREMENTS = "CUDA_REQUIREMENTS",
    _NCCL_REQUIREMENT = "NCCL_REQUIREMENT",
    _cuda_requirements = "cuda_requirements",
)
load("//toolchains/cuda/private:runtime_libs.bzl", _cuda_runtime_libs = "cuda_runtime_libs")

cuda_library = _cuda_library
cuda_objects = _cuda_objects
cuda_device_code = _cuda_device_code
cuda_runtime_libs = _cuda_runtime_libs
CUDA_REQUIREMENTS = _CUDA_REQUIREMENTS
CUDA12_REQUIREMENTS = _CUDA12_REQUIREMENTS
cuda_requirements = _cuda_requirements
NCCL_REQUIREMENT = _NCCL_REQUIREMENT
