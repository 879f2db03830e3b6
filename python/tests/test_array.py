"""cubridge.Array: creation, attributes, NumPy/DLPack/buffer export, lifetime."""

from __future__ import annotations

import gc
import sys
from typing import Any, Optional

import numpy as np
import pytest

import cubridge

MEMORY = ["device", "managed", "pinned"]
CPU = cubridge.backend() == "cpu"
cpu_only = pytest.mark.skipif(
    not CPU, reason="checks CPU-backend exports (host memory)"
)


def host_accessible(a: cubridge.Array) -> bool:
    return CPU or a.memory != "device"


@pytest.mark.parametrize("memory", MEMORY)
def test_creation_and_attributes(memory: str) -> None:
    a = cubridge.empty((2, 3, 4), "float64", memory=memory)
    assert isinstance(a, cubridge.Array)
    assert a.shape == (2, 3, 4) and a.ndim == 3 and a.size == 24 and len(a) == 2
    assert a.dtype == "float64" and a.itemsize == 8 and a.nbytes == 192
    assert a.strides == (96, 32, 8) and a.memory == memory
    assert a.ptr % 256 == 0
    assert a.device == cubridge._native.current_device()  # an index (issue 13)
    assert "shape=(2, 3, 4)" in repr(a) and "float64" in repr(a)
    np.testing.assert_array_equal(
        cubridge.zeros(5, memory=memory).to_numpy(), np.zeros(5)
    )
    z = cubridge.full((2, 2), 7, "int32", memory=memory).to_numpy()
    assert z.dtype == np.int32 and z.tolist() == [[7, 7], [7, 7]]


def test_constructor_defaults_and_shapes() -> None:
    a = cubridge.Array(4)
    assert a.shape == (4,) and a.dtype == "float32" and a.memory == "device"
    assert cubridge.Array([2, 2], "int64", "pinned").shape == (2, 2)
    s = cubridge.empty(())
    assert s.shape == () and s.size == 1
    with pytest.raises(TypeError, match="0-d"):
        len(s)
    e = cubridge.zeros((0, 3))
    assert e.size == 0 and e.nbytes == 0 and e.to_numpy().shape == (0, 3)


def test_dtype_spellings() -> None:
    assert cubridge.empty(1, np.float16).dtype == "float16"
    assert cubridge.empty(1, np.dtype("int32")).dtype == "int32"
    assert cubridge.empty(1, float).dtype == "float64"
    assert cubridge.empty(1, "bfloat16").itemsize == 2


@pytest.mark.parametrize("memory", MEMORY)
def test_roundtrip_numpy(memory: str) -> None:
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    a = cubridge.asarray(x, memory=memory)
    assert a.memory == memory and a.shape == (3, 4)
    np.testing.assert_array_equal(a.to_numpy(), x)
    np.testing.assert_array_equal(np.asarray(a), x)
    np.testing.assert_array_equal(a.copy().to_numpy(), x)
    assert a.copy().ptr != a.ptr
    np.testing.assert_array_equal(np.array(a, dtype=np.float64), x.astype(np.float64))


@pytest.mark.parametrize("memory", MEMORY)
def test_numpy_views_are_zero_copy_when_host_accessible(memory: str) -> None:
    a = cubridge.zeros(4, "float32", memory=memory)
    if not host_accessible(a):
        with pytest.raises(BufferError):
            memoryview(a)
        assert not hasattr(a, "__array_interface__")
        with pytest.raises(ValueError):
            np.asarray(a, copy=False)
        return
    v = np.asarray(a)
    assert v.ctypes.data == a.ptr
    v[1] = 5  # writes land in the Array
    assert a.to_numpy().tolist() == [0, 5, 0, 0]
    m = memoryview(a)
    assert m.format == "f" and m.shape == (4,) and not m.readonly
    assert a.__array_interface__["data"] == (a.ptr, False)
    d = np.from_dlpack(a)
    assert d.ctypes.data == a.ptr
    np.testing.assert_array_equal(d, [0, 5, 0, 0])
    # NumPy 2's __array__(dtype, copy): its own dtype is still a view; another dtype is a
    # copy, which copy=False refuses.
    assert a.__array__(dtype=np.float32, copy=False).ctypes.data == a.ptr
    with pytest.raises(ValueError, match="float64.*without a copy"):
        a.__array__(dtype=np.float64, copy=False)
    np.testing.assert_array_equal(a.__array__(dtype=np.float64), [0, 5, 0, 0])


def test_buffer_of_bfloat16_is_refused() -> None:
    a = cubridge.zeros(2, "bfloat16", memory="pinned")
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(a)
    with pytest.raises(TypeError, match="bfloat16"):
        a.to_numpy()


@cpu_only
def test_cpu_backend_exports_host_interfaces() -> None:
    a = cubridge.zeros(3)
    assert a.__dlpack_device__() == (1, 0)  # kDLCPU
    assert not hasattr(a, "__cuda_array_interface__")
    assert a.__array_interface__["typestr"] == "<f4"
    assert a.device == 0  # the CPU backend's one device


def test_dlpack_capsules() -> None:
    a = cubridge.zeros(3)
    assert 'dltensor_versioned"' in repr(a.__dlpack__(max_version=(1, 0)))
    assert '"dltensor"' in repr(a.__dlpack__())
    assert '"dltensor"' in repr(a.__dlpack__(max_version=(0, 8)))
    with pytest.raises(TypeError):
        a.__dlpack__(max_version=1)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(10, 0))
    with pytest.raises(ValueError, match="stream -7 is no stream"):
        a.__dlpack__(stream=-7)


def test_unconsumed_capsule_releases_the_array() -> None:
    a = cubridge.zeros(3)
    before = sys.getrefcount(a)
    caps = [a.__dlpack__(max_version=(1, 0)), a.__dlpack__()]
    assert sys.getrefcount(a) == before + 2
    del caps
    gc.collect()
    assert sys.getrefcount(a) == before


@pytest.mark.parametrize("memory", MEMORY)
def test_dlpack_keeps_memory_alive(memory: str) -> None:
    a = cubridge.full(1000, 3.0, "float64", memory=memory)
    if not host_accessible(a):
        pytest.skip("NumPy imports host memory only")
    v = np.from_dlpack(a)
    del a
    gc.collect()
    cubridge.zeros(1000, "float64", memory=memory)  # would reuse freed memory
    assert v.sum() == 3000.0


class _OnTheCpu:
    """What NumPy 2's from_dlpack(x, device="cpu", copy=...) asks of x, for NumPy 1.26,
    whose from_dlpack takes no keywords."""

    def __init__(self, a: Any, copy: Optional[bool]) -> None:
        self.a, self.copy = a, copy

    def __dlpack__(self, stream: Any = None) -> Any:
        return self.a.__dlpack__(stream=stream, dl_device=(1, 0), copy=self.copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def from_dlpack_on_cpu(a: Any, copy: Optional[bool] = None) -> np.ndarray:
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        return np.from_dlpack(a, device="cpu", copy=copy)
    return np.from_dlpack(_OnTheCpu(a, copy))


@pytest.mark.parametrize("memory", MEMORY)
def test_dlpack_copy_and_cpu_device(memory: str) -> None:
    a = cubridge.full(4, 2.0, memory=memory)
    c = from_dlpack_on_cpu(a, copy=True)
    assert c.ctypes.data != a.ptr
    np.testing.assert_array_equal(c, [2, 2, 2, 2])
    if host_accessible(a):
        v = from_dlpack_on_cpu(a)
        assert v.ctypes.data == a.ptr
    else:
        with pytest.raises(BufferError):
            from_dlpack_on_cpu(a, copy=False)
        v = from_dlpack_on_cpu(a)  # copy=None: a copy, as it is needed
        np.testing.assert_array_equal(v, [2, 2, 2, 2])


def test_array_as_out_and_input() -> None:
    x = cubridge.asarray(np.array([1.0, 2.0, 3.0]))
    y = cubridge.zeros(3, "float64")
    assert cubridge.add(x, x, out=y) is y
    assert y.to_numpy().tolist() == [2.0, 4.0, 6.0]
    z = cubridge.scale(x, 2)
    assert isinstance(z, cubridge.Array) and z.memory == "device"
    p = cubridge.asarray(np.ones(3), memory="pinned")
    r = cubridge.add(p, p)
    assert isinstance(r, cubridge.Array) and r.memory == "pinned"


def test_asarray() -> None:
    a = cubridge.asarray([[1, 2], [3, 4]])
    assert a.dtype == "int64" and a.shape == (2, 2)
    assert cubridge.asarray(a) is a
    assert cubridge.asarray(a, copy=True) is not a
    assert cubridge.asarray(a, "float32").dtype == "float32"
    assert cubridge.asarray(a, memory="pinned").memory == "pinned"
    with pytest.raises(ValueError, match="copy=False"):
        cubridge.asarray(np.ones(2), copy=False)
    strided = np.arange(10.0)[::2]
    np.testing.assert_array_equal(cubridge.asarray(strided).to_numpy(), strided)
    assert cubridge.asarray(np.array([True, False])).dtype == "int64"
    assert cubridge.asarray(2.5).shape == ()
    np.testing.assert_array_equal(
        cubridge.from_numpy(np.eye(2, dtype=np.float32)).to_numpy(), np.eye(2)
    )
    d = cubridge.asarray(cubridge.asarray([1.5, 2.5], "float16"), "float64")
    assert d.to_numpy().tolist() == [1.5, 2.5]


def test_asarray_converts_what_numpy_cannot_name() -> None:
    # bfloat16, which NumPy lacks, from dtypes the library has no copy of
    for src in (np.array([True, False]), np.array([3, 250], np.uint8)):
        b = cubridge.asarray(src, "bfloat16")
        assert b.dtype == "bfloat16"
        assert cubridge.astype(b, "float64").to_numpy().tolist() == src.astype(float).tolist()
    # another byte order: the values, not the bytes
    big = np.array([1.5, -2.0], ">f8")
    assert cubridge.asarray(big).to_numpy().tolist() == [1.5, -2.0]
    # uint64 goes to int64 only where it fits
    assert cubridge.asarray(np.array([2**63 - 1], np.uint64)).to_numpy().tolist() == [2**63 - 1]
    with pytest.raises(OverflowError, match="uint64 values above 2\\*\\*63 - 1"):
        cubridge.asarray(np.array([2**64 - 1], np.uint64))
    assert cubridge.asarray(np.array([2**64 - 1], np.uint64), "float64").to_numpy()[0] == 2.0**64
