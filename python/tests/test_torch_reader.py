"""torch.Tensor read through its C accessors, checked against a stand-in torch.

cubridge recognises ``torch.Tensor`` by name and reads ``data_ptr()``, ``dtype``,
``shape``, ``is_contiguous()``, the device and ``requires_grad`` instead of calling the
``__cuda_array_interface__`` property (which torch computes in Python on every access);
when ``torch.Tensor`` has DLPack's C exchange table (``__dlpack_c_exchange_api__``, torch
2.10 on), one C call fills a ``DLTensor`` instead. The stand-in has such a table, built
with ctypes, which fills tensors made with ``exchange=True`` and declines the others.
Here a stand-in ``torch`` module (when the real one is absent) drives every branch on
the CPU backend; tests/test_gpu_interop.py runs the same calls on real CUDA tensors.
"""

from __future__ import annotations

import ctypes
import importlib.util
import sys
import types
from typing import Any

import numpy as np
import pytest

import cubridge
from dlpack_ctypes import DLDataType, DLDevice, DLPackVersion, DLTensor, PyCapsule_New

if importlib.util.find_spec("torch") is not None:
    pytest.skip(
        "the real torch is installed: test_gpu_interop.py covers it",
        allow_module_level=True,
    )


class _DType:
    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return f"torch.{self.name}"


fake = types.ModuleType("torch")
for _name in ("float32", "float64", "int32", "int64", "float16", "bfloat16", "uint8"):
    setattr(fake, _name, _DType(_name))
fake.strided = object()
fake.sparse_coo = object()


class Tensor:
    """The accessors cubridge reads, over a NumPy array (a CPU tensor)."""

    cai_reads = 0

    def __init__(self, a: np.ndarray, dtype: Any = None, **attrs: Any) -> None:
        self.a = a
        self.dtype = dtype or getattr(fake, a.dtype.name)
        self.shape = tuple(a.shape)
        self.requires_grad = False
        self.layout = fake.strided
        self.is_cuda = False
        self.is_cpu = True
        self.__dict__.update(attrs)

    def data_ptr(self) -> int:
        return self.a.ctypes.data

    def is_contiguous(self) -> bool:
        return bool(self.a.flags.c_contiguous)

    def stride(self) -> tuple[int, ...]:
        return tuple(s // self.a.itemsize for s in self.a.strides)

    def get_device(self) -> int:
        return 0 if self.is_cuda else -1

    @property
    def __cuda_array_interface__(self) -> Any:
        Tensor.cai_reads += 1
        raise AttributeError("a CPU tensor has no __cuda_array_interface__")

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    def __dlpack__(self, **kwargs: Any) -> Any:
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient")
        if self.layout is not fake.strided:
            raise RuntimeError("sparse tensors have no DLPack")
        return self.a.__dlpack__(**kwargs)


Tensor.__module__ = "torch"
Tensor.__qualname__ = "Tensor"
Tensor.exchange_fills = 0


# DLPack's C exchange table (dlpack.h 1.2), with only the DLTensor filler.
_FILL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))


class _ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", _FILL),
        ("current_work_stream", ctypes.c_void_p),
    ]


def _fill(t: Any, out: Any) -> int:
    if not getattr(t, "exchange", False):
        return -1  # declined: cubridge reads the attributes
    Tensor.exchange_fills += 1
    a = t.a
    t.dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)  # alive as long as the tensor
    t.steps = (ctypes.c_int64 * max(a.ndim, 1))(*(s // a.itemsize for s in a.strides))
    d = out.contents
    d.data, d.device, d.ndim = a.ctypes.data, DLDevice(1, 0), a.ndim  # kDLCPU
    d.dtype = DLDataType({"i": 0, "u": 1, "f": 2}[a.dtype.kind], a.dtype.itemsize * 8, 1)
    d.shape, d.strides, d.byte_offset = t.dims, t.steps, 0
    return 0


_fill_fn = _FILL(_fill)
_api = _ExchangeAPI(DLPackVersion(1, 2), None, None, None, None, _fill_fn, None)
_API_NAME = b"dlpack_exchange_api"
Tensor.__dlpack_c_exchange_api__ = PyCapsule_New(ctypes.addressof(_api), _API_NAME, None)
fake.Tensor = Tensor


@pytest.fixture(autouse=True)
def stand_in_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", fake)


def test_tensors_are_read_zero_copy_without_the_interface_property() -> None:
    a = np.arange(6, dtype=np.float32)
    out = np.zeros(6, np.float32)
    to = Tensor(out)
    assert cubridge.add(Tensor(a), Tensor(a), out=to) is to
    assert out.tolist() == (2 * a).tolist()
    r = cubridge.mul(Tensor(a), Tensor(a))  # host tensors give a NumPy result
    assert isinstance(r, np.ndarray) and r.tolist() == (a * a).tolist()
    assert cubridge.sum(Tensor(a.reshape(2, 3))) == 15.0
    assert Tensor.cai_reads == 0


def test_bfloat16_tensor() -> None:
    raw = np.array([0x3F80, 0x4000, 0xC040], np.uint16)  # 1, 2, -3 as bfloat16
    assert cubridge.max(Tensor(raw, dtype=fake.bfloat16)) == 2.0


def test_tensor_errors_are_the_validators() -> None:
    with pytest.raises(TypeError, match="x has unsupported dtype torch.uint8"):
        cubridge.sum(Tensor(np.ones(3, np.uint8)))
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(Tensor(np.ones((4, 3), np.float32).T))
    with pytest.raises(TypeError, match="b has dtype float64"):
        cubridge.add(Tensor(np.ones(3, np.float32)), Tensor(np.ones(3)))


def test_tensors_that_need_torchs_own_protocol_take_it() -> None:
    a = np.ones(3, np.float32)
    with pytest.raises(RuntimeError, match="require gradient"):
        cubridge.sum(Tensor(a, requires_grad=True))
    with pytest.raises(RuntimeError, match="sparse"):
        cubridge.sum(Tensor(a, layout=fake.sparse_coo))
    meta = Tensor(a, is_cpu=False)  # neither CPU nor CUDA: torch's DLPack decides
    assert cubridge.sum(meta) == 3.0


def test_tensors_through_the_dlpack_exchange_table() -> None:
    a = np.arange(6, dtype=np.float32)
    out = np.zeros(6, np.float32)
    fills = Tensor.exchange_fills
    to = Tensor(out, exchange=True)
    assert cubridge.add(Tensor(a, exchange=True), Tensor(a, exchange=True), out=to) is to
    assert out.tolist() == (2 * a).tolist()
    assert Tensor.exchange_fills == fills + 3
    assert cubridge._native._fast_paths()["torch_exchange"] is True
    assert cubridge.sum(Tensor(a.reshape(2, 3), exchange=True)) == 15.0
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(Tensor(np.ones((4, 3), np.float32).T, exchange=True))
    with pytest.raises(TypeError, match="b has dtype float64"):
        cubridge.add(Tensor(a, exchange=True), Tensor(np.ones(6), exchange=True))
    with pytest.raises(RuntimeError, match="require gradient"):  # checked before the table
        cubridge.sum(Tensor(a, exchange=True, requires_grad=True))


@pytest.mark.skipif(cubridge.backend() != "cpu", reason="a fake CUDA tensor over host memory")
def test_cuda_tensors_are_refused_by_the_cpu_backend() -> None:
    t = Tensor(np.ones(3, np.float32), is_cuda=True, is_cpu=False)
    with pytest.raises(ValueError, match="CPU backend cannot use"):
        cubridge.sum(t)
