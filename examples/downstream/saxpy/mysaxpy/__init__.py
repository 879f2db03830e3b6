"""mysaxpy: a downstream module's CUDA kernel, built with cubridge's rules."""

from mysaxpy._saxpy import backend, saxpy

__all__ = ["backend", "saxpy"]
