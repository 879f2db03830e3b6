"""Zero-copy interop with CuPy, torch, NumPy (and JAX if present) on a real GPU.

Skips with the reason when there is no GPU backend, CuPy or torch. On the GPU host
(CuPy 14, torch 2.11 cu130, NumPy 2) it checks that each library imports a
cubridge.Array without copying (same data pointer) through DLPack and the CUDA array
interface, that cubridge takes their arrays without copying, and stream ordering.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cubridge
from gpu_peers import require_cuda_and_peers

cupy, torch = require_cuda_and_peers()
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

N = 1 << 20


# ---- they import ours -----------------------------------------------------


def test_backend_and_devices() -> None:
    devs = cubridge.devices()
    assert devs and devs[0].index == 0 and devs[0].name
    free, total = cubridge.mem_info()
    assert 0 < free <= total


def test_device_array_exports() -> None:
    a = cubridge.full(N, 1.5, "float32")
    assert a.__dlpack_device__() == (2, 0) and a.device == 0
    cai = a.__cuda_array_interface__
    assert cai["data"] == (a.ptr, False) and cai["version"] == 3
    assert not hasattr(a, "__array_interface__")
    with pytest.raises(BufferError):
        memoryview(a)


def test_cupy_from_dlpack_is_zero_copy() -> None:
    a = cubridge.full(N, 2.0, "float32")
    c = cupy.from_dlpack(a)
    assert c.data.ptr == a.ptr
    assert float(c.sum()) == 2.0 * N
    c[0] = 7  # writes through
    assert a.to_numpy()[0] == 7


def test_torch_from_dlpack_is_zero_copy() -> None:
    a = cubridge.full((4, N // 4), 3.0, "float64")
    t = torch.from_dlpack(a)
    assert t.data_ptr() == a.ptr and t.is_cuda and t.shape == (4, N // 4)
    assert t.dtype == torch.float64 and float(t.sum()) == 3.0 * N


def test_cuda_array_interface_consumers_are_zero_copy() -> None:
    a = cubridge.full(N, 4.0, "int32")
    c = cupy.asarray(a)
    assert c.data.ptr == a.ptr and int(c[5]) == 4
    t = torch.as_tensor(a, device="cuda")
    assert t.data_ptr() == a.ptr and int(t[5]) == 4


@pytest.mark.parametrize("memory", ["pinned", "managed"])
def test_numpy_from_dlpack_of_host_accessible_memory(memory: str) -> None:
    a = cubridge.full(1000, 5.0, "float32", memory=memory)
    v = np.from_dlpack(a)
    assert v.ctypes.data == a.ptr and v.sum() == 5000.0
    w = np.asarray(a)  # buffer protocol / __array_interface__
    assert w.ctypes.data == a.ptr


def test_managed_array_to_cupy() -> None:
    a = cubridge.full(1000, 1.0, memory="managed")
    assert cupy.from_dlpack(a).data.ptr == a.ptr
    assert cupy.asarray(a).data.ptr == a.ptr


def test_device_array_to_numpy_needs_a_copy() -> None:
    a = cubridge.full(10, 1.0)
    with pytest.raises(
        (BufferError, RuntimeError, ValueError)
    ):  # NumPy refuses kDLCUDA
        np.from_dlpack(a)
    np.testing.assert_array_equal(
        np.from_dlpack(a, device="cpu", copy=True), np.ones(10)
    )
    # copy=None (NumPy's default): a copy where one is needed, as the standard says.
    np.testing.assert_array_equal(np.from_dlpack(a, device="cpu"), np.ones(10))
    with pytest.raises(BufferError, match="not copy=False"):
        a.__dlpack__(dl_device=(1, 0), copy=False)
    np.testing.assert_array_equal(a.to_numpy(), np.ones(10))


# ---- we import theirs -----------------------------------------------------


def test_cubridge_takes_cupy_arrays_without_copying(cai_only: Any) -> None:
    x = cupy.arange(N, dtype=cupy.float32)
    out = cupy.empty_like(x)
    assert cubridge.add(x, x, out=out) is out
    cupy.testing.assert_array_equal(out, 2 * x)
    r = cubridge.mul(x, x)  # a device cubridge.Array
    assert isinstance(r, cubridge.Array) and r.memory == "device"
    cupy.testing.assert_array_equal(cupy.from_dlpack(r), x * x)
    assert cubridge.sum(x) == float(cupy.sum(x, dtype=cupy.float64))
    # CUDA array interface path, in place
    cubridge.scale(cai_only(out), 0.5, out=cai_only(out))
    cupy.testing.assert_array_equal(out, x)


def test_cupy_arrays_are_read_through_their_attributes() -> None:
    for dtype in (cupy.float16, cupy.float32, cupy.float64, cupy.int32, cupy.int64):
        x = cupy.arange(1, 41, dtype=dtype).reshape(5, 8)
        out = cupy.zeros_like(x)
        assert cubridge.add(x, x, out=out) is out
        cupy.testing.assert_array_equal(out, x + x)
        assert cubridge._native._fast_paths()["cupy_attributes"] is True
    x = cupy.arange(100, dtype=cupy.float64)
    assert cubridge.sum(x[37:]) == float(x[37:].sum())  # data.ptr is past the start
    assert cubridge.sum(cupy.empty(0, cupy.float32)) == 0.0
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(x[::2])
    for _ in range(2):  # described the second time too
        with pytest.raises(TypeError, match="unsupported dtype.*'[|]u1'"):
            cubridge.sum(cupy.ones(4, cupy.uint8))


def test_cupy_subclass_goes_through_the_interface() -> None:
    class Sub(cupy.ndarray):
        pass

    x = cupy.arange(10, dtype=cupy.float32).view(Sub)
    assert type(x) is Sub and cubridge.sum(x) == 45.0


def test_cupy_current_stream_orders_the_op_both_ways() -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.ones(N, dtype=cupy.float64)
        x *= 3  # pending on s
        y = cupy.empty_like(x)
        cubridge.add(x, x, out=y)  # no stream=: after s's work
        y += 1  # CuPy's next kernel on s sees the op's write
        total = float(y.sum())
    assert total == 7.0 * N


def test_cubridge_takes_torch_tensors_without_copying(cai_only: Any) -> None:
    t = torch.arange(N, dtype=torch.int64, device="cuda")
    out = torch.empty_like(t)
    assert cubridge.add(t, t, out=out) is out
    assert torch.equal(out, 2 * t)
    assert cubridge.max(t) == N - 1 and cubridge.sum(t) == N * (N - 1) // 2
    cubridge.fill(cai_only(out), 3)
    assert int(out.sum()) == 3 * N
    cpu = torch.arange(10, dtype=torch.float32)  # host tensor: DLPack kDLCPU
    r = cubridge.add(cpu, cpu)
    assert isinstance(r, np.ndarray) and r.tolist() == [2.0 * i for i in range(10)]


def test_bad_gpu_inputs() -> None:
    t = torch.ones((64, 32), device="cuda")
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.sum(t.T)
    with pytest.raises(ValueError):  # host + device cannot mix
        cubridge.add(np.ones(4, np.float32), cupy.ones(4, cupy.float32))
    with pytest.raises(TypeError, match="dtype"):
        cubridge.add(cupy.ones(4, cupy.float32), cupy.ones(4, cupy.float64))
    with pytest.raises(TypeError, match="unsupported dtype"):
        cubridge.sum(torch.ones(4, dtype=torch.uint8, device="cuda"))


def test_bfloat16_and_float16_through_torch() -> None:
    t = torch.tensor([1.0, 2.0, -3.0], dtype=torch.bfloat16, device="cuda")
    assert cubridge.sum(t) == 0.0
    r = cubridge.add(t, t)
    assert torch.equal(torch.from_dlpack(r), t + t)
    h = torch.tensor([0.5, 1.5], dtype=torch.float16, device="cuda")
    assert cubridge.dot(h, h) == 2.5


# ---- streams --------------------------------------------------------------


def test_cupy_streams() -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.full(N, 2.0, dtype=cupy.float32)
        y = cupy.empty_like(x)
        # Queued on s after the fill: ordered without any host synchronisation.
        cubridge.mul(x, x, out=y, stream=s)
        cubridge.add(y, y, out=y, stream=s.ptr)
    s.synchronize()
    assert float(y[0]) == 8.0 and float(y[-1]) == 8.0


def test_torch_streams() -> None:
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        t = torch.full((N,), 3.0, device="cuda")
        cubridge.scale(t, 2.0, out=t, stream=ts)
    ts.synchronize()
    assert float(t.min()) == 6.0


def test_cai_stream_is_honoured(cai_only: Any) -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.ones(N, dtype=cupy.float64)
        x *= 3  # pending on s; the CAI names s and cubridge waits for it
        total = cubridge.sum(cai_only(x))
    assert total == 3.0 * N


def test_our_pending_work_is_visible_to_their_stream() -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    a = cubridge.zeros(N, "float32")
    cubridge.fill(a, 9.0, stream=s)  # still running on s, perhaps
    with cupy.cuda.Stream(non_blocking=True):
        c = cupy.from_dlpack(a)  # consumer on another stream: cubridge syncs first
        assert float(c.min()) == 9.0
    t = torch.from_dlpack(a)
    assert float(t.max()) == 9.0


def test_jax_if_present() -> None:
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU device")
    x = jax.numpy.arange(16, dtype=jax.numpy.float32)
    assert cubridge.sum(x) == 120.0
    r = cubridge.add(x, x)
    assert float(jax.numpy.from_dlpack(r).sum()) == 240.0


def test_torch_tensors_are_read_through_dlpacks_c_table_when_torch_has_one() -> None:
    x = torch.full((1000,), 2.0, device="cuda")
    assert cubridge.sum(x) == 2000.0
    has_table = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
    assert cubridge._native._fast_paths()["torch_exchange"] is has_table
