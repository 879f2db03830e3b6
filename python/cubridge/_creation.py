"""Making :class:`cubridge.Array` objects."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import _native
from ._dtypes import DTYPES, dtype_name
from ._ops import Scalar, Stream

Array = _native.Array
Shape = Union[int, Sequence[int]]


Device = Optional[int]


def empty(
    shape: Shape, dtype: Any = "float32", *, memory: str = "device", device: Device = None
) -> Array:
    """A new uninitialised Array.

    ``memory`` is ``"device"`` (the library's caching, stream-ordered pool on the GPU:
    freed blocks are reused without ``cudaMalloc``/``cudaFree``), ``"managed"``
    (``cudaMallocManaged``: host and device may touch it) or ``"pinned"`` (page-locked
    host memory, cached). On the CPU backend all three are ordinary host memory.
    ``device`` is the GPU's index (``None``: the current device); the CPU backend has
    one device, 0.

    >>> import cubridge
    >>> a = cubridge.empty((2, 3), "int32")
    >>> a.shape, a.dtype, a.strides, a.memory
    ((2, 3), 'int32', (12, 4), 'device')
    >>> a.device
    0
    """
    return _native.Array(shape, dtype_name(dtype), memory, device)


def full(
    shape: Shape,
    value: Scalar,
    dtype: Any = "float32",
    *,
    memory: str = "device",
    device: Device = None,
    stream: Stream = None,
) -> Array:
    """A new Array with every element ``value`` (filled on ``stream``).

    >>> import cubridge
    >>> cubridge.full(3, 2.5).to_numpy()
    array([2.5, 2.5, 2.5], dtype=float32)
    """
    a = empty(shape, dtype, memory=memory, device=device)
    _native.fill(a, value, stream)
    return a


def zeros(
    shape: Shape,
    dtype: Any = "float32",
    *,
    memory: str = "device",
    device: Device = None,
    stream: Stream = None,
) -> Array:
    """A new Array of zeros.

    >>> import cubridge
    >>> cubridge.zeros((2, 2), "int64").to_numpy()
    array([[0, 0],
           [0, 0]])
    """
    return full(shape, 0, dtype, memory=memory, device=device, stream=stream)


def asarray(
    obj: Any,
    dtype: Any = None,
    *,
    memory: str = "device",
    copy: Optional[bool] = None,
    stream: Stream = None,
    device: Device = None,
) -> Array:
    """``obj`` as a :class:`cubridge.Array` in ``memory`` on ``device``.

    An Array already in ``memory`` (and on ``device``, when given) with the dtype asked
    for is returned as is (unless ``copy=True``); anything else is copied: arrays of any
    library (buffer protocol, DLPack, CUDA array interface), and lists or scalars
    (through NumPy). A non-contiguous NumPy array is made contiguous first.
    ``copy=False`` raises instead of copying. ``device=None`` keeps device memory on its
    device and puts host data on the current device.

    >>> import numpy as np, cubridge
    >>> a = cubridge.asarray(np.array([[1, 2], [3, 4]], np.int32))
    >>> a.shape, a.dtype
    ((2, 2), 'int32')
    >>> cubridge.asarray(a) is a
    True
    >>> cubridge.asarray([1.0, 2.0], "float16").to_numpy()
    array([1., 2.], dtype=float16)
    """
    name = None if dtype is None else dtype_name(dtype)
    if (
        isinstance(obj, Array)
        and obj.memory == memory
        and name in (None, obj.dtype)
        and device in (None, obj.device)
    ):
        if copy:
            return obj.copy()
        return obj
    if copy is False:
        raise ValueError(
            "asarray(copy=False): obj is not a cubridge.Array in "
            f"{memory!r} memory of dtype {name or 'its own'}"
            + ("" if device is None else f" on device {device}")
            + "; a copy is needed"
        )
    if not isinstance(obj, Array) and not _is_array_like(obj):
        import numpy as np

        obj = np.asarray(obj)
    if type(obj).__module__ == "numpy" and hasattr(obj, "flags"):
        import numpy as np

        if not obj.flags.c_contiguous:
            obj = np.ascontiguousarray(obj)
        if not obj.dtype.isnative:
            obj = obj.astype(obj.dtype.newbyteorder("="))
        if obj.dtype.name not in DTYPES:
            default = _default_for(obj.dtype)  # raises for dtypes with no lossless conversion
            # NumPy has no bfloat16: the library converts to it below.
            target = default if name in (None, "bfloat16") else name
            to_int64 = target == "int64" and obj.dtype == np.uint64
            if to_int64 and obj.size and int(obj.max()) >= 2**63:
                raise OverflowError(
                    "asarray: obj holds uint64 values above 2**63 - 1, which int64 cannot hold"
                )
            obj = obj.astype(target)
    result = _native.copy(obj, memory, stream, device)
    if name is not None and result.dtype != name:
        converted = empty(result.shape, name, memory=memory, device=result.device)
        result = _native.astype(result, name, converted, stream)
    return result


def from_numpy(
    a: Any, *, memory: str = "device", stream: Stream = None, device: Device = None
) -> Array:
    """A copy of the NumPy array ``a`` in a new Array (always a copy).

    >>> import numpy as np, cubridge
    >>> cubridge.from_numpy(np.arange(3.0)).to_numpy()
    array([0., 1., 2.])
    """
    return asarray(a, memory=memory, copy=True, stream=stream, device=device)


def _is_array_like(obj: Any) -> bool:
    if hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__"):
        return True
    try:
        memoryview(obj).release()
        return type(obj).__module__ != "builtins"  # bytes etc. go through NumPy
    except TypeError:
        return False


def _default_for(np_dtype: Any) -> str:
    kind = np_dtype.kind
    if kind in "biu":
        return "int64"
    if kind == "f":
        return "float64"
    # complex, object (None, mixed lists), strings, dates: no lossless conversion.
    raise TypeError(f"asarray: obj has unsupported dtype {np_dtype}")
