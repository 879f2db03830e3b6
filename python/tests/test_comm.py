"""cubridge.Comm without a GPU: argument checks, the CPU backend's clear refusal,
NCCL's discovery in site-packages; the library keeps working after each refusal.
(The GPU battery is tests/gpu/multi_gpu_test.py, run on the GPU host.)"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import cubridge
from cubridge import _comm, _native

CPU = cubridge.backend() == "cpu"


def healthy() -> None:
    a = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(cubridge.add(a, a), 2 * a)


@pytest.mark.skipif(not CPU, reason="CPU backend only")
@pytest.mark.parametrize(
    "make",
    [
        lambda: cubridge.Comm(),
        lambda: cubridge.Comm([0]),
        lambda: cubridge.Comm.unique_id(),
        lambda: cubridge.Comm.join(bytes(128), 0, 1, device=0),
    ],
    ids=["all-devices", "device-0", "unique_id", "join"],
)
def test_cpu_backend_says_nccl_is_not_available(make) -> None:
    with pytest.raises(cubridge.NoDeviceError, match="NCCL not available on the CPU backend"):
        make()
    healthy()


@pytest.mark.skipif(not CPU, reason="CPU backend only")
def test_cpu_backend_group_calls_refused() -> None:
    for start in (True, False):
        with pytest.raises(cubridge.NoDeviceError, match="CPU backend"):
            _native._comm_group(start)
    healthy()


def test_nccl_version_without_nccl_says_how_to_install() -> None:
    if os.environ.get("CUBRIDGE_NCCL_LIBRARY") or _comm._wheel_library():
        pytest.skip("NCCL is installed here")
    # A build without CUDA (mode=none) has no NCCL to install.
    with pytest.raises(
        cubridge.DriverError, match=r"NCCL not available.*(pip install cubridge-cu1[23]\[nccl\]|has no CUDA)"
    ):
        cubridge.Comm.nccl_version()
    healthy()


@pytest.mark.parametrize(
    "make,exc,msg",
    [
        (lambda: cubridge.Comm([]), ValueError, "at least one device"),
        (lambda: cubridge.Comm([0, 0]), ValueError, "distinct"),
        (lambda: cubridge.Comm(["x"]), ValueError, "invalid literal"),
        (lambda: cubridge.Comm.join("id", 0, 1), TypeError, "unique_id must be bytes"),
        (lambda: cubridge.Comm.join(bytes(128), 2, 2), ValueError, "rank must be in"),
        (lambda: cubridge.Comm.join(bytes(128), 0, 0), ValueError, "size must be at least 1"),
        (lambda: _native._comm_init_rank(bytes(5), 1, 0, 0), ValueError, "128 bytes"),
        (lambda: _native._comm_info(object()), TypeError, "comm"),
        (lambda: _native._comm_abort(object()), TypeError, "comm"),
        (lambda: _native._comm_async_error(object()), TypeError, "comm"),
        (lambda: _native._comm_collective(9, None, None, None, 0, None, 0), ValueError, "unknown collective"),
        (lambda: _native._comm_collective(0, None, None, None, 0, None, 9), ValueError, "unknown mode"),
        (lambda: _native._comm_collective(0, object(), None, None, 0, None, 0), TypeError, "comm"),
    ],
    ids=[
        "no-devices", "twice", "not-int", "id-str", "rank", "size", "id-len", "info", "abort",
        "async-error", "kind", "mode", "not-comm",
    ],
)
def test_bad_arguments_name_the_problem(make, exc, msg) -> None:
    with pytest.raises(exc, match=msg):
        make()
    healthy()


def test_op_names() -> None:
    assert [_comm._op_code(o) for o in ("sum", "prod", "max", "min")] == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="op must be one of sum, prod, max, min"):
        _comm._op_code("avg")


def test_finds_the_nccl_wheel_in_site_packages(tmp_path, monkeypatch) -> None:
    """As torch and CuPy do: site-packages/nvidia/nccl/lib/libnccl.so.2."""
    lib = tmp_path / "nvidia" / "nccl" / "lib" / "libnccl.so.2"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + [p for p in sys.path if "nvidia" not in p])
    found = _comm._wheel_library()
    assert found is not None and os.path.samefile(found, lib)
