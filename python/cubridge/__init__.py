"""cubridge: one set of CUDA kernels for Go and Python.

Every op takes arrays of any library that speaks DLPack, the CUDA array interface or
the buffer protocol (NumPy, CuPy, torch, JAX, :class:`cubridge.Array`) without copying
them. Without a GPU the same kernels run on the CPU backend.

>>> import numpy as np, cubridge
>>> a = np.array([1.0, 2.0, 3.0], np.float32)
>>> cubridge.add(a, a)
array([2., 4., 6.], dtype=float32)
>>> cubridge.sum(a)
6.0
>>> d = cubridge.asarray(a)          # a device Array (host memory on the CPU backend)
>>> cubridge.mul(d, d).to_numpy()
array([1., 4., 9.], dtype=float32)
>>> cubridge.backend() in ("cpu", "cuda")
True
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _native
from ._creation import asarray, empty, from_numpy, full, zeros
from ._dtypes import DTYPES
from ._native import (
    Array,
    CudaError,
    CudaStickyError,
    DriverError,
    Error,
    InternalError,
    InvalidArgumentError,
    LaunchError,
    NoDeviceError,
    OutOfMemoryError,
    UnsupportedDtypeError,
)
from ._ops import (
    add,
    astype,
    axpy,
    convert,
    copyto,
    div,
    dot,
    fill,
    max,
    min,
    mul,
    scale,
    sub,
    sum,
    synchronize,
)

#: Version of the compiled library, "MAJOR.MINOR.PATCH".
__version__: str = _native.__version__


@dataclass(frozen=True)
class Device:
    """A CUDA device visible to cubridge."""

    index: int
    name: str


def backend() -> str:
    """The backend the kernels run on: ``"cuda"`` or ``"cpu"``.

    Chosen once, at first use, from the environment variable ``CUBRIDGE_BACKEND``
    (``cpu`` | ``cuda`` | ``auto``; auto picks CUDA when a GPU is visible).

    >>> import cubridge
    >>> cubridge.backend() in ("cpu", "cuda")
    True
    """
    return _native.backend()


def devices() -> list[Device]:
    """The CUDA devices visible (an empty list on the CPU backend).

    >>> import cubridge
    >>> all(isinstance(d.name, str) for d in cubridge.devices())
    True
    """
    return [Device(i, _native.device_name(i)) for i in range(_native.device_count())]


def mem_info() -> tuple[int, int]:
    """``(free_bytes, total_bytes)`` of the current device (raises without one)."""
    return _native.mem_info()


__all__ = [
    "Array",
    "CudaError",
    "CudaStickyError",
    "DTYPES",
    "Device",
    "DriverError",
    "Error",
    "InternalError",
    "InvalidArgumentError",
    "LaunchError",
    "NoDeviceError",
    "OutOfMemoryError",
    "UnsupportedDtypeError",
    "__version__",
    "add",
    "asarray",
    "astype",
    "axpy",
    "backend",
    "convert",
    "copyto",
    "devices",
    "div",
    "dot",
    "empty",
    "fill",
    "from_numpy",
    "full",
    "max",
    "mem_info",
    "min",
    "mul",
    "scale",
    "sub",
    "sum",
    "synchronize",
    "zeros",
]
