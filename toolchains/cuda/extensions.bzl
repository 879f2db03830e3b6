"""Module extension that declares cubridge's CUDA toolkit repositories.

All are fetched lazily: only the toolkit that --@cubridge//toolchains/cuda:mode
and :version select is ever downloaded or looked for (version=12: Debian's
CUDA 12.4 packages, @cuda12_toolkit, and the -cu12 wheels, @cuda12_<name>), a library's wheel (@cuda_cublas,
@cuda_curand, ...) only when a target links that library, and nccl_wheel (NCCL
headers and libnccl.so.2) when a wheels- or local-mode build needs it.
"""

load("//toolchains/cuda/private:nccl_repository.bzl", "nccl_wheel")
load("//toolchains/cuda/private:repositories.bzl", "cuda12_debian", "cuda_library_wheel", "cuda_local", "cuda_wheels")
load("//toolchains/cuda/private:versions.bzl", "CUDA12_LIBRARIES", "CUDA_LIBRARIES")

def _cuda_impl(_mctx):
    cuda_wheels(name = "cuda_wheels")
    cuda_local(name = "cuda_local")
    nccl_wheel(name = "nccl_wheel")
    for library in CUDA_LIBRARIES:
        cuda_library_wheel(name = "cuda_" + library, library = library)

    # --@cubridge//toolchains/cuda:version=12: Debian's 12.4 toolkit and the
    # -cu12 wheels, fetched only when a CUDA 12 build needs them.
    cuda12_debian(name = "cuda12_toolkit")
    nccl_wheel(name = "nccl12_wheel", cuda_major = "12")
    for library in CUDA12_LIBRARIES:
        cuda_library_wheel(name = "cuda12_" + library, library = library, cuda_major = "12")

cuda = module_extension(implementation = _cuda_impl)
