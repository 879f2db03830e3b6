"""Devices (issue 13) and the library's memory pool (issue 15) from Python.

Runs on every backend; the CPU backend has one device, 0, and counts every
allocation on it. GPU-only cases (a second device, mixed devices) are in
tests/gpu/test_multi_gpu.py and test_gpu_streams.py.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import cubridge
from cubridge import _native

CPU = cubridge.backend() == "cpu"
cpu_only = pytest.mark.skipif(not CPU, reason="the CPU backend's one device")


def test_array_device_is_an_index() -> None:
    a = cubridge.empty(4)
    assert a.device == _native.current_device() and isinstance(a.device, int)
    assert cubridge.zeros(4, device=a.device).device == a.device
    assert cubridge.full(2, 1.0, device=a.device).to_numpy().tolist() == [1.0, 1.0]
    b = cubridge.asarray(np.arange(3.0), device=a.device)
    assert b.device == a.device and b.to_numpy().tolist() == [0.0, 1.0, 2.0]
    assert cubridge.asarray(b, device=a.device) is b
    assert f"device={a.device}" in repr(a)


@cpu_only
def test_cpu_backend_has_one_device() -> None:
    a = cubridge.empty(3, device=0)
    assert a.device == 0 and a.__dlpack_device__() == (1, 0)
    for make in (
        lambda: cubridge.empty(3, device=1),
        lambda: cubridge.zeros(3, device=1),
        lambda: cubridge.full(3, 2.0, device=1),
        lambda: cubridge.asarray([1.0], device=1),
        lambda: cubridge.from_numpy(np.ones(2), device=1),
        lambda: cubridge.Array(3, "float32", "device", 1),
        lambda: cubridge.memory_stats(1),
    ):
        with pytest.raises(cubridge.InvalidArgumentError, match="'device' = 1") as info:
            make()
        assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="copy=False"):
        cubridge.asarray(a, device=1, copy=False)


def test_device_argument_types() -> None:
    with pytest.raises(TypeError, match="device must be None or a device index"):
        cubridge.empty(3, device="cuda:0")
    with pytest.raises(ValueError, match="device must be None or an index >= 0"):
        cubridge.empty(3, device=-1)


def test_memory_stats_count_arrays_and_results() -> None:
    gc.collect()
    before = cubridge.memory_stats()
    assert set(before) == {
        "in_use_bytes",
        "reserved_bytes",
        "peak_in_use_bytes",
        "alloc_count",
        "free_count",
        "cached_bytes",
        "scratch_bytes",
    }
    assert before["reserved_bytes"] >= before["in_use_bytes"] >= 0
    a = cubridge.empty(1000, "float32")
    r = cubridge.add(a, a)  # a new result: from the pool too
    during = cubridge.memory_stats()
    assert during["in_use_bytes"] - before["in_use_bytes"] == 8000
    assert during["alloc_count"] - before["alloc_count"] == 2
    assert during["peak_in_use_bytes"] >= during["in_use_bytes"]
    del a, r
    gc.collect()
    after = cubridge.memory_stats()
    assert after["in_use_bytes"] == before["in_use_bytes"]
    assert after["free_count"] - before["free_count"] == 2
    # The two freed blocks are kept for the next allocation of their size (a miss
    # may have given back what was cached before).
    assert after["cached_bytes"] >= 8000
    assert after["reserved_bytes"] >= after["in_use_bytes"] + after["cached_bytes"]
    cubridge.empty_cache()
    cubridge.empty_cache(0)
    emptied = cubridge.memory_stats(0)
    assert emptied["in_use_bytes"] == after["in_use_bytes"]
    assert emptied["cached_bytes"] == 0


def test_the_host_paths_device_memory_is_counted_and_returned() -> None:
    # Host arrays past 16 MiB in all are staged through device buffers on the GPU
    # backend: kept for the next such call, counted as scratch_bytes (part of
    # reserved_bytes), and handed back by empty_cache(). The CPU backend has none.
    a = np.full(3 << 20, 2.0, np.float32)  # 3 x 12 MiB
    np.testing.assert_array_equal(cubridge.mul(a, a)[:3], [4.0, 4.0, 4.0])
    stats = cubridge.memory_stats()
    if cubridge.backend() == "cpu":
        assert stats["scratch_bytes"] == 0
        return
    assert stats["scratch_bytes"] >= 9 * (4 << 20)  # 3 slots x 3 buffers of 4 MiB
    assert stats["reserved_bytes"] >= stats["in_use_bytes"] + stats["scratch_bytes"]
    cubridge.empty_cache()
    assert cubridge.memory_stats()["scratch_bytes"] < stats["scratch_bytes"]


def test_results_of_foreign_host_arrays_stay_numpy() -> None:
    # Host inputs give NumPy results: nothing from the pool.
    before = cubridge.memory_stats()["alloc_count"]
    r = cubridge.add(np.ones(3), np.ones(3))
    assert isinstance(r, np.ndarray)
    assert cubridge.memory_stats()["alloc_count"] == before
