"""Several GPUs from Python (issue 13): every op on the device of its arrays.

Needs the GPU backend and at least two devices (the device tool's nvidia-h200-x2 kind);
skips otherwise. The CPU backend's device checks are in test_devices_memory.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import cubridge

if cubridge.backend() != "cuda" or len(cubridge.devices()) < 2:
    pytest.skip("needs the GPU backend and two devices", allow_module_level=True)

N = 1 << 16


def healthy() -> None:
    for d in (0, 1):
        x = cubridge.full(N, 1.0, device=d)
        assert cubridge.sum(cubridge.add(x, x)) == 2.0 * N


def test_arrays_and_ops_on_device_1() -> None:
    start = cubridge._native.current_device()
    a = cubridge.full(N, 2.0, "float32", device=1)
    assert a.device == 1 and a.__dlpack_device__() == (2, 1)
    r = cubridge.mul(a, a)
    assert r.device == 1 and cubridge.sum(r) == 4.0 * N
    assert cubridge.asarray(np.ones(4), device=1).device == 1
    assert cubridge.asarray(a).device == 1  # device memory stays where it is
    assert cubridge._native.current_device() == start  # the caller's device untouched
    assert cubridge.memory_stats(1)["in_use_bytes"] >= 2 * N * 4


def test_mixed_devices_are_refused_naming_both() -> None:
    a0 = cubridge.full(N, 1.0, device=0)
    a1 = cubridge.full(N, 1.0, device=1)
    with pytest.raises(cubridge.InvalidArgumentError) as info:
        cubridge.add(a0, a1)
    assert isinstance(info.value, ValueError)
    assert "0" in str(info.value) and "1" in str(info.value)
    with pytest.raises(ValueError):
        cubridge.add(a0, a0, out=a1)
    healthy()


def test_foreign_arrays_on_cuda_1() -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed")
    x = torch.arange(N, dtype=torch.float32, device="cuda:1")
    assert cubridge.sum(x) == float(N * (N - 1) // 2)
    r = cubridge.add(x, x)
    assert isinstance(r, cubridge.Array) and r.device == 1
    assert torch.equal(torch.from_dlpack(r), 2 * x)
    out = torch.empty_like(x)
    cubridge.mul(x, x, out=out)
    assert torch.equal(out, x * x)
    with pytest.raises(ValueError):
        cubridge.add(x, torch.zeros(N, device="cuda:0"))
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    with cupy.cuda.Device(1):
        c = cupy.ones(N, dtype=cupy.float32)
    assert cubridge.sum(c) == float(N)
    healthy()


def test_a_copy_to_another_device_waits_for_the_sources_default_stream() -> None:
    # x's fill on device 0's default stream is queued behind about 0.1 s of spinning
    # there; the copy to device 1 (on the default stream too) must read what it wrote.
    torch = pytest.importorskip("torch", reason="torch is not installed")
    x = cubridge.zeros(N, "float32", device=0)
    for value, spin in ((3.0, False), (5.0, True)):  # the first pass loads the kernels
        cubridge.synchronize()
        if spin:
            with torch.cuda.device(0):
                torch.cuda._sleep(200_000_000)
        cubridge.fill(x, value)
        y = cubridge.asarray(x, device=1)
        assert y.device == 1
        assert y.to_numpy()[[0, -1]].tolist() == [value, value]
    healthy()
