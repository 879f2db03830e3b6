"""cubridge.cuda_version() and driver_version(): the CUDA the build selected.

The BUILD file passes CUBRIDGE_EXPECT_CUDA_VERSION ("13.0", "12.4", "0.0": the
toolkit of @cuda_config, or no CUDA at all); without it (a local toolkit, the
wheel on the GPU host) only the invariants are checked.
"""

from __future__ import annotations

import os

import cubridge


def test_cuda_version_is_the_builds() -> None:
    version = cubridge.cuda_version()
    assert isinstance(version, tuple) and len(version) == 2
    assert version[0] in (0, 12, 13)
    want = os.environ.get("CUBRIDGE_EXPECT_CUDA_VERSION")
    if want:
        assert version == tuple(int(x) for x in want.split("."))


def test_driver_version() -> None:
    driver = cubridge.driver_version()
    assert isinstance(driver, tuple) and len(driver) == 2
    assert driver >= (0, 0)
    if cubridge.cuda_version() == (0, 0):
        assert driver == (0, 0)  # a build without CUDA has no driver to ask
    if cubridge.backend() == "cuda":
        assert driver[0] >= cubridge.cuda_version()[0]


def test_native_form() -> None:
    # MAJOR*1000 + MINOR*10, as CUDA writes it (CUDART_VERSION, cudaDriverGetVersion).
    major, minor = cubridge.cuda_version()
    assert cubridge._native.cuda_version() == major * 1000 + minor * 10
