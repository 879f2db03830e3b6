"""The kernels of the C ABI as Python functions.

Arguments: any array exporting ``__dlpack__``, ``__cuda_array_interface__`` (v3) or the
buffer protocol (NumPy, CuPy, torch, JAX, :class:`cubridge.Array`), C-contiguous, of one
of the dtypes in :data:`cubridge.DTYPES`. Nothing is copied: host arrays go to the
library as host pointers, device arrays stay on the device.

Dtype rules: no promotion. All array arguments of an op must have the same dtype and the
same shape (no broadcasting); ``out`` must match too. Integer arithmetic wraps around.

``out=None`` allocates the result next to the first argument: host inputs give a
``numpy.ndarray``, a :class:`cubridge.Array` gives an Array of the same memory kind, and
device arrays of other libraries give a device :class:`cubridge.Array` (import it
zero-copy with ``cupy.from_dlpack`` / ``torch.from_dlpack``). Device results come from the
library's caching pool on the op's stream and device (see :func:`cubridge.memory_stats`).
Arrays on two devices in one call are an :class:`InvalidArgumentError` naming both.

``stream``: an int ``cudaStream_t`` (``0``: the default stream), an object with
``__cuda_stream__``, ``.ptr`` (CuPy) or ``.cuda_stream`` (torch), or ``None``: the stream
that produced the first array argument when it names one (torch's current stream for a
torch tensor, as torch's own ops and its C++ extensions use; a CUDA array interface's
``stream``), else the default stream. Device work is asynchronous on that stream; host
work and reductions return when done.

Other libraries' arrays are ordered by events, never by a device-wide synchronisation:
the op waits for the stream their producer names (a CUDA array interface's ``stream``;
torch's current stream for a torch tensor; DLPack producers are asked with
``__dlpack__(stream=)``), and the interface's or torch's stream then waits for the op, so
their next kernels see its result. When that stream is the op's stream, nothing is done.
"""

from __future__ import annotations

from typing import Any, Optional, Union

from . import _native
from ._dtypes import dtype_name

ArrayLike = (
    Any  # anything with __dlpack__, __cuda_array_interface__ or the buffer protocol
)
Stream = Any  # None, int, or an object with __cuda_stream__ / .ptr / .cuda_stream
Scalar = Union[int, float]


def _bind(name: str, doc: str) -> Any:
    """The C function of op ``name`` itself, with its Python signature (keyword arguments,
    ``inspect.signature``) and this docstring: no Python frame per call (a wrapper cost
    25-45 ns of a 270 ns CPU-backend add). Signatures: ``_ops.pyi``."""
    return _native.bind(name, __name__, doc)


add = _bind(
    "add",
    """Elementwise ``a + b``.

    >>> import numpy as np, cubridge
    >>> cubridge.add(np.array([1, 2, 3], np.float32), np.array([10, 20, 30], np.float32))
    array([11., 22., 33.], dtype=float32)
    >>> x = np.array([1, 2], np.int32)
    >>> cubridge.add(x, x, out=x)  # in place: out may be an input
    array([2, 4], dtype=int32)
    """,
)

sub = _bind(
    "sub",
    """Elementwise ``a - b``.

    >>> import numpy as np, cubridge
    >>> cubridge.sub(np.array([5.0, 1.0]), np.array([2.0, 4.0]))
    array([ 3., -3.])
    """,
)

mul = _bind(
    "mul",
    """Elementwise ``a * b``.

    >>> import numpy as np, cubridge
    >>> cubridge.mul(np.array([2, -3], np.int64), np.array([4, 5], np.int64))
    array([  8, -15])
    """,
)


div = _bind(
    "div",
    """Elementwise ``a / b``, with ``zero_value`` where ``b == 0``.

    Integer division truncates toward zero (like C, unlike NumPy's ``//``).

    >>> import numpy as np, cubridge
    >>> cubridge.div(np.array([1.0, 2.0]), np.array([4.0, 0.0]), zero_value=-1)
    array([ 0.25, -1.  ])
    >>> cubridge.div(np.array([7, -7], np.int32), np.array([2, 2], np.int32))
    array([ 3, -3], dtype=int32)
    """,
)


axpy = _bind(
    "axpy",
    """``alpha * x + y``; ``out=y`` updates ``y`` in place (BLAS axpy).

    One pass over the arrays; ``out`` may be ``y``, ``x`` or an array of its own.

    >>> import numpy as np, cubridge
    >>> y = np.array([1.0, 1.0], np.float32)
    >>> cubridge.axpy(2.0, np.array([1.0, 2.0], np.float32), y, out=y)
    array([3., 5.], dtype=float32)
    """,
)


scale = _bind(
    "scale",
    """``alpha * x``; ``out=x`` scales in place.

    >>> import numpy as np, cubridge
    >>> cubridge.scale(np.array([1.0, -2.0]), 0.5)
    array([ 0.5, -1. ])
    """,
)


fill = _bind(
    "fill",
    """Set every element of ``x`` to ``value`` (in place) and return ``x``.

    >>> import numpy as np, cubridge
    >>> cubridge.fill(np.empty(3, np.int32), 7)
    array([7, 7, 7], dtype=int32)
    """,
)


def astype(
    x: ArrayLike,
    dtype: Any = None,
    *,
    out: Optional[ArrayLike] = None,
    stream: Stream = None,
) -> Any:
    """Convert ``x`` to ``dtype`` (or to ``out``'s dtype). Float to int truncates toward zero.

    >>> import numpy as np, cubridge
    >>> cubridge.astype(np.array([1.5, -2.7]), "int32")
    array([ 1, -2], dtype=int32)
    >>> cubridge.astype(np.array([1, 2], np.int64), np.float16)
    array([1., 2.], dtype=float16)
    """
    name = None if dtype is None else dtype_name(dtype)
    return _native.astype(x, name, out, stream)


convert = astype


sum = _bind(  # noqa: A001 (NumPy's name)
    "sum",
    """Sum of all elements, as a Python scalar.

    Floating dtypes accumulate in float64 and return ``float``; integer dtypes
    accumulate in int64 (wrapping) and return ``int``. The result is deterministic.

    >>> import numpy as np, cubridge
    >>> cubridge.sum(np.array([0.5, 0.25], np.float32))
    0.75
    >>> cubridge.sum(np.arange(5, dtype=np.int32))
    10
    """,
)


dot = _bind(
    "dot",
    """Dot product of two 1-D arrays, as a Python scalar (same dtype rules as :func:`sum`).

    >>> import numpy as np, cubridge
    >>> cubridge.dot(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
    32.0
    """,
)


min = _bind(  # noqa: A001 (NumPy's name)
    "min",
    """Smallest element, as a Python scalar (``float`` or ``int``); NaN if any is NaN.

    An empty array raises :class:`cubridge.InvalidArgumentError` (a ``ValueError``).

    >>> import numpy as np, cubridge
    >>> cubridge.min(np.array([3, -1, 2], np.int32))
    -1
    """,
)

max = _bind(  # noqa: A001
    "max",
    """Largest element, as a Python scalar (``float`` or ``int``); NaN if any is NaN.

    >>> import numpy as np, cubridge
    >>> cubridge.max(np.array([3.5, -1.0], np.float32))
    3.5
    """,
)


copyto = _bind(
    "copyto",
    """Copy ``src`` into ``dst`` (same dtype and shape, any memory kinds); return ``dst``.

    >>> import numpy as np, cubridge
    >>> dst = cubridge.empty(2, "float64")
    >>> cubridge.copyto(dst, np.array([1.0, 2.0])).to_numpy()
    array([1., 2.])
    """,
)


def synchronize(stream: Stream = None) -> None:
    """Wait for queued work: on ``stream``, or on the whole device when ``None``.

    >>> import cubridge
    >>> cubridge.synchronize()
    """
    _native.synchronize(stream)
