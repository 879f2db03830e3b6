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
from typing import Optional

from . import _native
from ._comm import Comm
from ._creation import asarray, empty, from_numpy, full, zeros
from ._dtypes import DTYPES
from ._graph import Graph, Stream
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


def _major_minor(v: int) -> tuple[int, int]:
    return (v // 1000, v % 1000 // 10)


def cuda_version() -> tuple[int, int]:
    """``(major, minor)`` of the CUDA the library was built with; ``(0, 0)`` without CUDA.

    The wheel says the same in its name: ``cubridge-cu13`` is built with CUDA 13.0,
    ``cubridge-cu12`` with CUDA 12.4.

    >>> import cubridge
    >>> cubridge.cuda_version()[0] in (0, 12, 13)
    True
    """
    return _major_minor(_native.cuda_version())


def driver_version() -> tuple[int, int]:
    """``(major, minor)`` of the CUDA the installed driver supports; ``(0, 0)`` without one.

    It must be at least :func:`cuda_version`'s major for the CUDA backend to run.

    >>> import cubridge
    >>> cubridge.driver_version() >= (0, 0)
    True
    """
    return _major_minor(_native.driver_version())


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


def memory_stats(device: Optional[int] = None) -> dict[str, int]:
    """Counters of the library's device memory pool on ``device`` (``None``: current).

    ``in_use_bytes`` (handed out, not yet freed), ``reserved_bytes`` (held from the
    driver: in use plus cached), ``peak_in_use_bytes``, ``alloc_count``, ``free_count``,
    ``cached_bytes`` (freed blocks kept for the next allocation of their size on their
    stream; part of ``reserved_bytes``, returned by :func:`empty_cache`).
    Every Array of ``memory="device"`` and every new result comes from this pool; a freed
    block is reused by the next allocation on its stream without ``cudaMalloc``.

    >>> import cubridge
    >>> s = cubridge.memory_stats()
    >>> a = cubridge.empty(1000, "float32")
    >>> cubridge.memory_stats()["in_use_bytes"] - s["in_use_bytes"]
    4000
    """
    return _native.memory_stats(device)


def empty_cache(device: Optional[int] = None) -> None:
    """Return the pool's cached, unused memory to the driver (``None``: every device).

    Waits for the device's queued work first. Arrays in use are not touched.
    """
    _native.empty_cache(device)


__all__ = [
    "Array",
    "Comm",
    "CudaError",
    "CudaStickyError",
    "DTYPES",
    "Device",
    "DriverError",
    "Error",
    "Graph",
    "InternalError",
    "InvalidArgumentError",
    "LaunchError",
    "NoDeviceError",
    "OutOfMemoryError",
    "Stream",
    "UnsupportedDtypeError",
    "__version__",
    "add",
    "asarray",
    "astype",
    "axpy",
    "backend",
    "convert",
    "copyto",
    "cuda_version",
    "devices",
    "div",
    "dot",
    "driver_version",
    "empty",
    "empty_cache",
    "fill",
    "from_numpy",
    "full",
    "max",
    "mem_info",
    "memory_stats",
    "min",
    "mul",
    "scale",
    "sub",
    "sum",
    "synchronize",
    "zeros",
]
