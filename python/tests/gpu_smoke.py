"""A quick end-to-end check of an installed cubridge on a GPU host.

Usage: python gpu_smoke.py   (exit status 0 when every check passed)
Runs whatever it can: NumPy always, CuPy and torch when installed.
"""

from __future__ import annotations

import sys
import time
import traceback

import numpy as np

import cubridge

failures = 0


def check(name: str, fn) -> None:  # type: ignore[no-untyped-def]
    global failures
    try:
        t0 = time.perf_counter()
        fn()
        print(f"ok    {name} ({(time.perf_counter() - t0) * 1e3:.1f} ms)")
    except Exception:  # noqa: BLE001 (reported and counted)
        failures += 1
        print(f"FAIL  {name}")
        traceback.print_exc()


def numpy_ops() -> None:
    a = np.arange(1 << 20, dtype=np.float32)
    np.testing.assert_array_equal(cubridge.add(a, a), a + a)
    assert cubridge.sum(np.arange(100, dtype=np.int64)) == 4950


def device_array() -> None:
    d = cubridge.full(1 << 20, 2.0, "float32")
    assert cubridge.sum(cubridge.mul(d, d)) == 4.0 * (1 << 20)
    np.testing.assert_array_equal(d.to_numpy()[:3], [2, 2, 2])


def cupy_interop() -> None:
    import cupy

    a = cubridge.full(1000, 1.0)
    assert cupy.from_dlpack(a).data.ptr == a.ptr
    assert cupy.asarray(a).data.ptr == a.ptr
    x = cupy.arange(1000, dtype=cupy.float32)
    out = cupy.empty_like(x)
    cubridge.add(x, x, out=out, stream=cupy.cuda.get_current_stream())
    cupy.testing.assert_array_equal(out, 2 * x)


def torch_interop() -> None:
    import torch

    a = cubridge.full(1000, 1.0)
    assert torch.from_dlpack(a).data_ptr() == a.ptr
    assert torch.as_tensor(a, device="cuda").data_ptr() == a.ptr
    t = torch.arange(1000, dtype=torch.float32, device="cuda")
    assert cubridge.sum(t) == 499500.0


def main() -> int:
    print(f"cubridge {cubridge.__version__}, backend {cubridge.backend()}")
    for d in cubridge.devices():
        print(f"  device {d.index}: {d.name}")
    check("numpy ops", numpy_ops)
    check("device Array", device_array)
    for mod, fn in (("cupy", cupy_interop), ("torch", torch_interop)):
        try:
            __import__(mod)
        except ImportError:
            print(f"skip  {mod} interop ({mod} not installed)")
            continue
        if cubridge.backend() != "cuda":
            print(f"skip  {mod} interop (no GPU)")
            continue
        check(f"{mod} interop", fn)
    print("PASS" if failures == 0 else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
