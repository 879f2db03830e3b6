"""Module extension that declares cubridge's CUDA toolkit repositories.

Both are fetched lazily: only the one that --@cubridge//toolchains/cuda:mode
selects is ever downloaded or looked for.
"""

load("//toolchains/cuda/private:repositories.bzl", "cuda_local", "cuda_wheels")

def _cuda_impl(_mctx):
    cuda_wheels(name = "cuda_wheels")
    cuda_local(name = "cuda_local")

cuda = module_extension(implementation = _cuda_impl)
