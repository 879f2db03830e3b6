"""The preamble of the GPU interop test modules: skip the whole module, with the
reason, unless cubridge runs its CUDA backend and CuPy and torch are installed."""

from __future__ import annotations

from typing import Any

import pytest

import cubridge


def require_cuda_and_peers() -> tuple[Any, Any]:
    """Returns (cupy, torch); call it at a test module's top level."""
    if cubridge.backend() != "cuda":
        pytest.skip(
            f"no GPU: cubridge runs its {cubridge.backend()} backend",
            allow_module_level=True,
        )
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    torch = pytest.importorskip("torch", reason="torch is not installed")
    return cupy, torch
