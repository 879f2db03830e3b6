"""mygemm: cuBLAS GEMM, cuRAND fill and an rdc kernel from a downstream module.

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

import numpy as np

F32, F16 = 0, 1


def device_count():
    """Number of CUDA devices."""
    return _gemm.device_count()


def matmul(a, b):
    """a @ b for 2-D float32 NumPy arrays, by cuBLAS on the GPU."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"mygemm.matmul: shapes {a.shape} and {b.shape} do not multiply")
    c = np.empty((a.shape[0], b.shape[1]), dtype=np.float32)
    _gemm.matmul_f32(a.shape[0], b.shape[1], a.shape[1], a, b, c)
    return c


def matmul_into(a_ptr, b_ptr, c_ptr, m, n, k, dtype=F32):
    """C = A @ B on device pointers (row-major; e.g. torch's data_ptr()), asynchronous."""
    _gemm.matmul_device(dtype, m, n, k, a_ptr, b_ptr, c_ptr)


def uniform(n, seed=0):
    """n float32 uniforms in (0, 1] from cuRAND (Philox), as a NumPy array."""
    out = np.empty(n, dtype=np.float32)
    _gemm.uniform(out, seed)
    return out


def affine(x, scale, shift):
    """scale * x + shift for a float32 array, by the rdc kernel (a new array)."""
    out = np.array(x, dtype=np.float32, copy=True, order="C")
    _gemm.affine(out, scale, shift)
    return out


def synchronize():
    """Waits for the GPU."""
    _gemm.synchronize()


__all__ = ["F16", "F32", "affine", "device_count", "matmul", "matmul_into", "synchronize", "uniform"]
