"""mysaxpy: a downstream module's CUDA kernel, bound by cubridge's kernel_binding.

``saxpy(x, y, a)`` takes NumPy, torch, CuPy and JAX arrays, cubridge.Array, or
anything with ``__dlpack__``, ``__cuda_array_interface__`` or the buffer protocol.
"""

from mysaxpy._saxpy import saxpy

__all__ = ["saxpy"]
