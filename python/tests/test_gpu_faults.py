"""Faults on the GPU host (skipped on the CPU backend): device out-of-memory,
mid-pipeline out-of-memory, a managed request beyond free memory, a kernel that
faults, no visible GPU. Each must be an error with a message, leave the caller's
``out`` as it was, and (except the sticky kernel fault, which ends the CUDA
context by design) let the next call work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import pytest

import cubridge

pytestmark = pytest.mark.skipif(
    cubridge.backend() != "cuda", reason="needs the CUDA backend (GPU host)"
)


def works() -> None:
    a = np.arange(1000, dtype=np.float32)
    np.testing.assert_array_equal(cubridge.add(a, a), 2 * a)
    d = cubridge.asarray(a)
    assert cubridge.sum(cubridge.mul(d, d)) == float((a.astype(np.float64) ** 2).sum())


def test_device_oom_then_normal_op() -> None:
    free, total = cubridge.mem_info()
    with pytest.raises(cubridge.OutOfMemoryError) as info:
        cubridge.empty(total * 2 // 4, "float32")  # twice the card: cudaMalloc refuses
    assert info.value.status_name == "OUT_OF_MEMORY" and str(info.value)
    works()


def test_managed_beyond_free_is_refused_without_allocating() -> None:
    # The library compares with free memory before cudaMallocManaged (a managed
    # oversubscription can hang the GPU): this must be refused, nothing allocated.
    # More than the device has: what the pool keeps is released first, and counts as free.
    _, total = cubridge.mem_info()
    with pytest.raises(cubridge.OutOfMemoryError, match="exceeds the device's free memory"):
        cubridge.empty(total // 4 + (1 << 28), "float32", memory="managed")
    works()


def hog() -> list:
    """Allocate device memory until less than 16 MiB is free; return the arrays."""
    arrays = []
    chunk = 1 << 30
    while chunk >= 1 << 20:
        try:
            arrays.append(cubridge.empty(chunk // 4, "float32"))
        except cubridge.OutOfMemoryError:
            chunk //= 2
    return arrays


def test_out_of_memory_mid_pipeline_leaves_out_untouched() -> None:
    n = 64 << 20  # 256 MiB host arrays: the pipelined path with staging buffers
    a = np.ones(n, np.float32)
    out = np.full(n, 42.0, np.float32)
    held = hog()
    try:
        try:
            cubridge.add(a, a, out=out)
            ok = True
        except cubridge.OutOfMemoryError as e:
            assert str(e)
            ok = False
        if ok:  # the pipeline found room (pinned staging is host memory): right answer
            assert (out == 2.0).all()
        else:  # refused: nothing half-written
            assert (out == 42.0).all(), "out was half-written by a failed call"
        d = np.ones(1000, np.float32)
        with pytest.raises(cubridge.OutOfMemoryError):
            cubridge.asarray(np.ones(1 << 28, np.float32))  # 1 GiB more: none left
        np.testing.assert_array_equal(
            cubridge.add(d, d), 2 * d
        )  # CPU-thread path works
    finally:
        del held
        # The caching allocator keeps freed blocks for reuse, as CuPy's and
        # torch's do: hand the whole card back so other processes (the child
        # tests below) can allocate again, and check that it really does.
        free_before, _ = cubridge.mem_info()
        cubridge.empty_cache()
        free_after, _ = cubridge.mem_info()
        assert free_after > free_before + (1 << 30), (free_before, free_after)
    works()


KERNEL_FAULT = r"""
import cubridge, cupy, sys
x = cupy.zeros(1, cupy.float32)
class Liar:  # claims 2^28 elements at a 4-byte allocation: the kernel reads far out of bounds
    __cuda_array_interface__ = dict(shape=(1 << 28,), typestr="<f4", data=(x.data.ptr, False), version=3)
try:
    cubridge.sum(Liar())
    cubridge.synchronize()
    print("no error")
except cubridge.Error as e:
    print(type(e).__name__, e.status_name, bool(str(e)))
    try:
        cubridge.synchronize()
        print("next call ok")
    except cubridge.Error as e2:
        print("next call", type(e2).__name__)
"""


def test_kernel_fault_is_an_error_not_a_crash(child: Any) -> None:
    pytest.importorskip("cupy")
    r = child(KERNEL_FAULT)
    assert r.returncode == 0, r.stderr[-2000:]
    print(r.stdout)
    # An illegal address may or may not be hit (the pages may be mapped); when it
    # is, it must surface as a cubridge error (sticky or launch), never a crash.
    assert r.stdout.startswith(
        ("no error", "CudaStickyError", "LaunchError", "CudaError")
    ), r.stdout
    # A fresh process has a healthy GPU.
    assert (
        child(
            "import cubridge, numpy as np; print(cubridge.sum(cubridge.asarray(np.ones(8))))"
        ).stdout.strip()
        == "8.0"
    )


NO_GPU = r"""
import cubridge, numpy as np
errors = 0
for _ in range(3):
    try:
        cubridge.add(np.ones(3), np.ones(3)); cubridge.empty(4)
    except (cubridge.NoDeviceError, cubridge.DriverError) as e:
        assert str(e); errors += 1
print(cubridge.backend(), errors)
"""


def test_no_visible_gpu(child: Any) -> None:
    r = child(NO_GPU, CUDA_VISIBLE_DEVICES="", CUBRIDGE_BACKEND="cuda")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["cuda", "3"], r.stdout
    r = child(NO_GPU, CUDA_VISIBLE_DEVICES="", CUBRIDGE_BACKEND="auto")
    assert r.returncode == 0 and r.stdout.split() == ["cpu", "0"], r.stdout + r.stderr
