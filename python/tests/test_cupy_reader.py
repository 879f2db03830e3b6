"""cupy.ndarray read through its attributes, checked against a stand-in CuPy.

cubridge recognises ``cupy.ndarray`` by name and reads ``data.ptr``,
``data.device_id``, ``shape``, ``strides`` and ``dtype`` instead of the
``__cuda_array_interface__`` property (a dict CuPy builds on every access), then orders
the op after CuPy's current stream as that property would have named it. A CuPy array
is device memory, which the CPU backend refuses: here a stand-in ``cupy`` (when the
real one is absent) checks on the CPU backend which path read the array and that its
errors are the validator's; tests/test_gpu_interop.py runs real CuPy arrays on the GPU.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

import numpy as np
import pytest

import cubridge

if importlib.util.find_spec("cupy") is not None:
    pytest.skip(
        "the real CuPy is installed: test_gpu_interop.py covers it",
        allow_module_level=True,
    )
if cubridge.backend() != "cpu":
    pytest.skip("the stand-in's arrays are host memory", allow_module_level=True)


class _MemoryPointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr
        self.device_id = 0


class ndarray:
    """The attributes cubridge reads, over a NumPy array."""

    cai_reads = 0

    def __init__(self, a: np.ndarray, **attrs: Any) -> None:
        self.a = a
        self.data = _MemoryPointer(a.ctypes.data)
        self.shape = a.shape
        self.strides = a.strides
        self.dtype = a.dtype
        self.__dict__.update(attrs)

    @property
    def __cuda_array_interface__(self) -> Any:
        ndarray.cai_reads += 1
        return {
            "shape": self.a.shape,
            "typestr": self.a.dtype.str,
            "data": (self.a.ctypes.data, False),
            "version": 3,
            "strides": None,
        }


ndarray.__module__ = "cupy"
ndarray.__qualname__ = "ndarray"


class _Stream:
    ptr = 0  # Stream.null


def _modules() -> dict[str, types.ModuleType]:
    cupy = types.ModuleType("cupy")
    cupy.ndarray = ndarray
    cuda = types.ModuleType("cupy.cuda")
    cuda.get_current_stream = lambda device_id=-1: _Stream()
    cupy.cuda = cuda
    backends = types.ModuleType("cupy_backends")
    backends_cuda = types.ModuleType("cupy_backends.cuda")
    stream = types.ModuleType("cupy_backends.cuda.stream")
    stream.get_default_stream_ptr = lambda: 1
    backends.cuda, backends_cuda.stream = backends_cuda, stream
    return {
        "cupy": cupy,
        "cupy.cuda": cuda,
        "cupy_backends": backends,
        "cupy_backends.cuda": backends_cuda,
        "cupy_backends.cuda.stream": stream,
    }


@pytest.fixture(autouse=True)
def stand_in_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, module in _modules().items():
        monkeypatch.setitem(sys.modules, name, module)


def test_arrays_are_read_by_their_attributes_not_the_interface() -> None:
    reads = ndarray.cai_reads
    with pytest.raises(ValueError, match=r"x is CUDA device memory \(a CuPy array\)"):
        cubridge.sum(ndarray(np.ones(3, np.float32)))
    assert ndarray.cai_reads == reads
    assert cubridge._native._fast_paths()["cupy_attributes"] is True


def test_errors_are_the_validators() -> None:
    for _ in range(2):  # the second time too: an unsupported dtype is described each time
        with pytest.raises(TypeError, match=r"x has unsupported dtype.*'\|u1'"):
            cubridge.sum(ndarray(np.ones(3, np.uint8)))
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(ndarray(np.ones((4, 3), np.float32).T))
    with pytest.raises(ValueError, match="C-contiguous"):  # a stride of half an item
        cubridge.sum(ndarray(np.ones(3, np.float32), strides=(2,)))
    with pytest.raises(ValueError, match="dimensions"):
        cubridge.sum(ndarray(np.ones(1, np.float32), shape=(1,) * 65, strides=(4,) * 65))
    with pytest.raises(ValueError, match="strides that do not match its shape"):
        cubridge.sum(ndarray(np.ones(3, np.float32), strides=(4, 4)))


def test_an_array_without_the_attributes_goes_through_the_interface() -> None:
    reads = ndarray.cai_reads
    bare = ndarray(np.ones(3, np.float32))
    del bare.data
    with pytest.raises(ValueError, match=r"\(__cuda_array_interface__\)"):
        cubridge.sum(bare)
    assert ndarray.cai_reads == reads + 1
    assert cubridge._native._fast_paths()["cupy_attributes"] is False
