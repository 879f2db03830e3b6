"""mygemm: cuBLAS GEMM, cuRAND fill and an rdc kernel from a downstream module,
bound by cubridge's kernel_binding (matmul.bind, uniform.bind, affine.bind): they
take NumPy, torch, CuPy and JAX arrays and cubridge.Array, on their device and stream.

The extension links libcublas.so.13 and libcurand.so.10 from the NVIDIA wheels
(nvidia-cublas, nvidia-curand: this wheel requires them). It finds them in
site-packages/nvidia/cu13/lib through its run path; when they live in another
sys.path entry (pip --target, a second site-packages), they are preloaded from
there; when they are nowhere, the ImportError names the package to install.
"""

import ctypes
import os
import sys

# soname -> the requirement this build was made with (see BUILD: CUDA_REQUIREMENTS).
_LIBRARIES = {
    "libcublasLt.so.13": "nvidia-cublas",
    "libcublas.so.13": "nvidia-cublas",
    "libcurand.so.10": "nvidia-curand",
}


def _preload():
    """Loads the NVIDIA libraries from any sys.path entry's nvidia/cu13/lib."""
    for soname in _LIBRARIES:
        for entry in sys.path:
            path = os.path.join(entry or ".", "nvidia", "cu13", "lib", soname)
            if os.path.exists(path):
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                    break
                except OSError:
                    continue


try:
    from mygemm import _gemm
except ImportError as first:
    _preload()
    try:
        from mygemm import _gemm
    except ImportError as err:
        missing = [pkg for so, pkg in _LIBRARIES.items() if so in str(err)]
        if not missing:
            raise
        raise ImportError(
            f"mygemm needs the {missing[0]} wheel ({err}); install it: pip install {missing[0]}"
        ) from first

from mygemm._gemm import affine, matmul, uniform  # noqa: E402

__all__ = ["affine", "matmul", "uniform"]
