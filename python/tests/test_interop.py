"""Foreign producers on the CPU: DLPack (legacy and versioned, built with ctypes so every
field can be set), __cuda_array_interface__ and the buffer protocol, checked for
zero-copy, capsule renaming, deleters, read-only flags, strides and streams."""

from __future__ import annotations

import ctypes
from typing import Any, Optional

import numpy as np
import pytest

import cubridge
from dlpack_ctypes import (
    DLDataType,
    DLDevice,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLPackVersion,
    DLTensor,
    LegacyDeleter,
    PyCapsule_New,
    VersionedDeleter,
)

cpu_only = pytest.mark.skipif(
    cubridge.backend() != "cpu", reason="fakes point host memory at device labels"
)



CODES = {"f": 2, "i": 0, "u": 1, "c": 5, "b": 6}


class FakeTensor:
    """A DLPack producer over a NumPy array, with every field under the test's control."""

    def __init__(
        self,
        array: np.ndarray,
        *,
        versioned: bool = True,
        device: tuple[int, int] = (1, 0),
        flags: int = 0,
        dtype: Optional[tuple[int, int, int]] = None,
        strides: bool = False,
        major: int = 1,
        shape: Optional[tuple[int, ...]] = None,
    ) -> None:
        self.array = array
        self.shape = shape
        self.versioned = versioned
        self.device = device
        self.flags = flags
        self.dtype = dtype or (CODES[array.dtype.kind], array.dtype.itemsize * 8, 1)
        self.strides = strides
        self.major = major
        self.deleted = 0
        self.calls: list[dict[str, Any]] = []
        self.device_calls = 0
        self._keep: list[Any] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        self.device_calls += 1
        return self.device

    def __dlpack__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if not self.versioned and "max_version" in kwargs:
            raise TypeError(
                "__dlpack__() got an unexpected keyword argument 'max_version'"
            )
        a = self.array
        dims = a.shape if self.shape is None else self.shape
        shape = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        strides = (ctypes.c_int64 * max(a.ndim, 1))(
            *[s // a.itemsize for s in a.strides]
        )
        t = DLTensor(
            a.ctypes.data,
            DLDevice(*self.device),
            len(dims),
            DLDataType(*self.dtype),
            shape,
            strides if self.strides else None,
            0,
        )

        def on_delete(_: Any) -> None:
            self.deleted += 1

        if self.versioned and "max_version" in kwargs:
            deleter: Any = VersionedDeleter(on_delete)
            m: Any = DLManagedTensorVersioned(
                DLPackVersion(self.major, 0), None, deleter, self.flags, t
            )
            name = b"dltensor_versioned"
        else:
            deleter = LegacyDeleter(on_delete)
            m = DLManagedTensor(t, None, deleter)
            name = b"dltensor"
        self._keep += [shape, strides, deleter, m, name]
        capsule = PyCapsule_New(ctypes.addressof(m), name, None)
        self._keep.append(capsule)
        self.capsule = capsule
        return capsule


@pytest.mark.parametrize("versioned", [True, False])
def test_dlpack_inputs_are_zero_copy_and_deleted_once(versioned: bool) -> None:
    a = np.arange(6, dtype=np.float32)
    fa = FakeTensor(a, versioned=versioned)
    out = np.zeros(6, np.float32)
    fo = FakeTensor(out, versioned=versioned)
    assert cubridge.add(fa, fa, out=fo) is fo
    np.testing.assert_array_equal(out, 2 * a)  # written in place: zero-copy
    assert fa.deleted == 2 and fo.deleted == 1
    name = "used_dltensor_versioned" if versioned else "used_dltensor"
    assert f'"{name}"' in repr(fa.capsule)
    assert fa.calls[0].get("max_version") == (1, 0)
    assert "stream" not in fa.calls[-1]  # CPU producers get no stream


def test_dlpack_host_input_gives_numpy_result() -> None:
    a = np.arange(3, dtype=np.int64)
    r = cubridge.mul(FakeTensor(a), FakeTensor(a))
    assert isinstance(r, np.ndarray) and r.tolist() == [0, 1, 4]
    assert cubridge.sum(FakeTensor(a)) == 3


def test_dlpack_read_only_flag() -> None:
    a = np.ones(3)
    assert cubridge.sum(FakeTensor(a, flags=1)) == 3.0
    f = FakeTensor(a.copy(), flags=1)
    with pytest.raises(ValueError, match="out is read-only"):
        cubridge.add(a, a, out=f)
    assert f.deleted == 1  # released on the error path too


def test_dlpack_strides() -> None:
    a = np.ones((3, 4))
    assert cubridge.sum(FakeTensor(a, strides=True)) == 12.0  # explicit C strides
    t = FakeTensor(np.ones((4, 3)).T, strides=True)
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(t)
    assert t.deleted == 1


def test_dlpack_bad_dtypes_and_devices() -> None:
    a = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="unsupported dtype uint32"):
        cubridge.sum(FakeTensor(a.view(np.uint32)))
    with pytest.raises(TypeError, match="lanes 2"):
        cubridge.sum(FakeTensor(a, dtype=(2, 16, 2)))
    with pytest.raises(ValueError, match="device type 10"):
        cubridge.sum(FakeTensor(a, device=(10, 0)))
    with pytest.raises(BufferError, match="version 2"):
        cubridge.sum(FakeTensor(a, major=2))


@pytest.mark.parametrize(
    "shape,message",
    [
        ((-3,), "negative dimension"),
        ((2, -1), "negative dimension"),
        ((2**40, 2**40), "too large"),
        ((1,) * 65, "at most 64"),
    ],
)
def test_dlpack_shapes_are_validated(shape: tuple[int, ...], message: str) -> None:
    # The same validator as every other protocol: nothing is read from a bad shape.
    t = FakeTensor(np.ones(4, np.float32), shape=shape)
    with pytest.raises(ValueError, match=message):
        cubridge.sum(t)
    assert t.deleted == 1


def test_dlpack_device_is_asked_once() -> None:
    t = FakeTensor(np.arange(4.0))
    assert cubridge.sum(t) == 6.0
    assert t.device_calls == 1 and len(t.calls) == 1

    class DeviceBuffer(np.ndarray):
        """A buffer-protocol object whose producer says it lives on a GPU."""

        device_calls = 0

        def __dlpack_device__(self) -> tuple[int, int]:
            DeviceBuffer.device_calls += 1
            return (13, 0)  # managed: readable on the CPU backend too

        def __dlpack__(self, **kwargs: Any) -> Any:
            assert kwargs.pop("stream") == 1  # a CUDA producer gets the stream
            return self.view(np.ndarray).__dlpack__(**kwargs)

    d = np.arange(4.0).view(DeviceBuffer)
    assert cubridge.sum(d) == 6.0
    assert DeviceBuffer.device_calls == 1


def test_cai_shapes_are_validated() -> None:
    for shape, message in (((-2,), "negative dimension"), ((2**40, 2**40), "too large")):
        with pytest.raises(ValueError, match=message):
            cubridge.sum(FakeCAI(np.ones(4), shape=shape))


def test_dlpack_bfloat16_input() -> None:
    # bfloat16 1.0 is 0x3F80; build it with NumPy's uint16 and label it bfloat16.
    raw = np.array([0x3F80, 0x4000, 0xC040], np.uint16)  # 1, 2, -3
    assert cubridge.sum(FakeTensor(raw, dtype=(4, 16, 1))) == 0.0
    assert cubridge.max(FakeTensor(raw, dtype=(4, 16, 1))) == 2.0


def test_producer_errors_propagate() -> None:
    class Broken:
        def __dlpack__(self, **kwargs: Any) -> Any:
            raise RuntimeError("producer is broken")

    with pytest.raises(RuntimeError, match="broken"):
        cubridge.sum(Broken())

    class NotACapsule:
        def __dlpack__(self, **kwargs: Any) -> Any:
            return 42

    with pytest.raises(TypeError, match="DLPack capsule"):
        cubridge.sum(NotACapsule())


def test_numpy_dlpack_only_objects() -> None:
    class OnlyDLPack:
        def __init__(self, a: np.ndarray) -> None:
            self.a = a

        def __dlpack__(self, **kw: Any) -> Any:
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self) -> Any:
            return self.a.__dlpack_device__()

    a = np.arange(4.0)
    assert cubridge.dot(OnlyDLPack(a), OnlyDLPack(a)) == 14.0
    out = np.zeros(4)
    cubridge.add(OnlyDLPack(a), a, out=OnlyDLPack(out))
    assert out.tolist() == [0, 2, 4, 6]
    ro = a.copy()
    ro.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        cubridge.add(a, a, out=OnlyDLPack(ro))


@cpu_only
def test_cuda_producers_get_the_stream() -> None:
    a = np.arange(4, dtype=np.float32)
    f = FakeTensor(a, device=(2, 0))
    # The CPU backend asks for the data on the stream, then refuses device memory
    # (CPU threads cannot read it; with CUBRIDGE_BACKEND=cpu on a GPU host they crashed).
    with pytest.raises(ValueError, match="CPU backend cannot use"):
        cubridge.add(f, f)
    assert f.calls[0]["stream"] == 1  # legacy default stream
    with pytest.raises(ValueError, match="CPU backend cannot use"):
        cubridge.add(f, f, stream=1234)
    assert f.calls[-1]["stream"] == 1234
    g = FakeTensor(a, device=(13, 0))
    assert cubridge.add(g, g).memory == "managed"


class FakeCAI:
    def __init__(self, a: np.ndarray, **extra: Any) -> None:
        self.a = a
        self.__cuda_array_interface__ = {
            "shape": a.shape,
            "typestr": a.dtype.str,
            "data": (a.ctypes.data, not a.flags.writeable),
            "strides": None,
            "version": 3,
            "stream": 1,
        }
        self.__cuda_array_interface__.update(extra)


@cpu_only
def test_cuda_array_interface() -> None:
    a = np.arange(5, dtype=np.float64)
    out = np.zeros(5)
    # Valid interfaces are parsed, then refused: the CPU backend cannot read CUDA
    # memory (the pointers here are host memory, but a real producer's are not).
    for good in (
        lambda: cubridge.add(FakeCAI(a), FakeCAI(a), out=FakeCAI(out)),
        lambda: cubridge.sum(FakeCAI(a, stream=None)),
        lambda: cubridge.sum(FakeCAI(a, stream=99)),
        lambda: cubridge.sum(FakeCAI(a, version=2)),
        lambda: cubridge.sum(FakeCAI(a, strides=(8,))),
        lambda: cubridge.sum(FakeCAI(np.arange(6.0).reshape(2, 3), strides=(24, 8))),
    ):
        with pytest.raises(ValueError, match="CPU backend cannot use"):
            good()
    assert out.tolist() == [0] * 5
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(FakeCAI(np.ones((2, 3)), strides=(8, 16)))
    with pytest.raises(ValueError, match="stream 0"):
        cubridge.sum(FakeCAI(a, stream=0))
    with pytest.raises(ValueError, match="masked"):
        cubridge.sum(FakeCAI(a, mask=object()))
    with pytest.raises(TypeError, match="unsupported dtype"):
        cubridge.sum(FakeCAI(np.ones(3, np.uint16)))
    ro = FakeCAI(a, data=(a.ctypes.data, True))
    with pytest.raises(ValueError, match="out is read-only"):
        cubridge.add(a, a, out=ro)
    with pytest.raises(ValueError, match="lacks"):
        cubridge.sum(FakeCAI(a, data=None))


def test_buffer_protocol_objects() -> None:
    import array

    buf = array.array("d", [1.0, 2.0, 3.0])
    assert cubridge.sum(buf) == 6.0
    cubridge.scale(buf, 2, out=buf)
    assert list(buf) == [2.0, 4.0, 6.0]
    assert cubridge.sum(memoryview(np.arange(4, dtype=np.int32))) == 6
    with pytest.raises(TypeError, match="unsupported"):
        cubridge.sum(array.array("B", [1, 2]))
