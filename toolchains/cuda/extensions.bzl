"""Module extension that declares cubridge's CUDA toolkit repositories.

All are fetched lazily: only the toolkit that --@cubridge//toolchains/cuda:mode
selects is ever downloaded or looked for, a library's wheel (@cuda_cublas,
@cuda_curand, ...) only when a target links that library, and nccl_wheel (NCCL
headers and libnccl.so.2) when a wheels- or local-mode build needs it.
"""

load("//toolchains/cuda/private:nccl_repository.bzl", "nccl_wheel")
load("//toolchains/cuda/private:repositories.bzl", "cuda_library_wheel", "cuda_local", "cuda_wheels")
load("//toolchains/cuda/private:versions.bzl", "CUDA_LIBRARIES")

def _cuda_impl(_mctx):
    cuda_wheels(name = "cuda_wheels")
    cuda_local(name = "cuda_local")
    nccl_wheel(name = "nccl_wheel")
    for library in CUDA_LIBRARIES:
        cuda_library_wheel(name = "cuda_" + library, library = library)

cuda = module_extension(implementation = _cuda_impl)
