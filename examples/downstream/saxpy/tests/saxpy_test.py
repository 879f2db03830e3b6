"""mysaxpy from Python: the shared vectors, every array library present, streams, errors.

NumPy and cubridge.Array run everywhere (the CPU backend on CI); torch, CuPy and
JAX arrays, host and device, where those libraries are installed (the GPU host).
"""

import importlib.util
import os

import numpy as np
import pytest
import vectors

import cubridge
import mysaxpy

CASES = vectors.load(os.environ.get("SAXPY_VECTORS", "testdata/saxpy.txt"))
ON_CUDA = cubridge.backend() == "cuda"


def have(module):
    return importlib.util.find_spec(module) is not None


needs_cuda = pytest.mark.skipif(not ON_CUDA, reason="needs the CUDA backend (a GPU)")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vectors_numpy(case):
    x = np.array(case["x"], case["dtype"])
    y = np.array(case["y"], case["dtype"])
    assert mysaxpy.saxpy(x, y, case["a"][0]) is y
    np.testing.assert_array_equal(y, np.array(case["want"], case["dtype"]))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vectors_cubridge_arrays(case):
    x = cubridge.asarray(np.array(case["x"], case["dtype"]))
    y = cubridge.asarray(np.array(case["y"], case["dtype"]))
    mysaxpy.saxpy(x, y, case["a"][0], stream=0)
    np.testing.assert_array_equal(y.to_numpy(), np.array(case["want"], case["dtype"]))


def _torch(device):
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch


@pytest.mark.skipif(not have("torch"), reason="torch is not installed")
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_torch(device):
    torch = _torch(device)
    if device == "cuda" and not ON_CUDA:
        pytest.skip("cubridge runs on the CPU backend")
    x = torch.arange(1000, dtype=torch.float32, device=device)
    y = torch.ones(1000, dtype=torch.float32, device=device)
    mysaxpy.saxpy(x, y, 2.0)
    if device == "cuda":
        torch.cuda.synchronize()
    assert torch.equal(y.cpu(), 2 * torch.arange(1000, dtype=torch.float32) + 1)


@pytest.mark.skipif(not have("torch"), reason="torch is not installed")
@needs_cuda
def test_torch_producer_on_a_side_stream_is_seen():
    torch = _torch("cuda")
    n = 1 << 24
    side = torch.cuda.Stream()
    x = torch.zeros(n, device="cuda")
    y = torch.ones(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # the write below lands late
        x.fill_(2.0)
        # stream=None: the call runs on torch's current stream, after the write.
        mysaxpy.saxpy(x, y, 3.0)
    # Explicitly on the side stream from outside, too.
    mysaxpy.saxpy(x, y, 1.0, stream=side)
    side.synchronize()
    assert float(y[0]) == 9.0 and float(y[-1]) == 9.0


@pytest.mark.skipif(not have("cupy"), reason="CuPy is not installed")
@needs_cuda
def test_cupy_on_its_stream():
    import cupy

    n = 1 << 20
    with cupy.cuda.Stream(non_blocking=True) as s:
        x = cupy.full(n, 2, cupy.float64)
        y = cupy.ones(n, cupy.float64)
        # __cuda_array_interface__ names CuPy's current stream: the call waits for it.
        mysaxpy.saxpy(x, y, 0.5)
        s.synchronize()
    assert float(y[0]) == 2.0 and float(y[-1]) == 2.0
    h = np.ones(4)  # NumPy beside CuPy, one process
    mysaxpy.saxpy(np.arange(4.0), h, 1.0)
    np.testing.assert_array_equal(h, [1, 2, 3, 4])


@pytest.mark.skipif(not have("jax"), reason="JAX is not installed")
def test_jax_through_dlpack():
    import jax
    import jax.numpy as jnp

    if not ON_CUDA and jax.default_backend() != "cpu":
        pytest.skip("JAX's arrays are on a GPU, cubridge on the CPU backend")
    x = jnp.arange(8, dtype=jnp.float32)
    y = cubridge.asarray(np.ones(8, np.float32), memory="device")
    mysaxpy.saxpy(x, y, 2.0)
    np.testing.assert_array_equal(y.to_numpy(), 2 * np.arange(8, dtype=np.float32) + 1)


def test_errors_name_the_argument():
    x = np.ones(3, np.float32)
    with pytest.raises(cubridge.InvalidArgumentError, match=r"argument 'y' has shape \(2,\), but n = 3 from 'x'"):
        mysaxpy.saxpy(x, np.ones(2, np.float32), 1.0)
    with pytest.raises(cubridge.UnsupportedDtypeError, match="argument 'y' has dtype float64, but must have the dtype of 'x'"):
        mysaxpy.saxpy(x, np.ones(3), 1.0)
    with pytest.raises(cubridge.UnsupportedDtypeError, match="argument 'x' has dtype int64; saxpy takes float32 or float64"):
        mysaxpy.saxpy(np.ones(3, np.int64), np.ones(3, np.int64), 1.0)
    with pytest.raises(TypeError, match="a must be a real number"):
        mysaxpy.saxpy(x, x.copy(), "two")
    with pytest.raises(TypeError, match=r"saxpy\(\) missing required argument 'a'"):
        mysaxpy.saxpy(x, x.copy())


def test_signature_and_stub():
    import inspect

    assert str(inspect.signature(mysaxpy.saxpy)) == "(x, y, a, *, stream=None)"
    assert mysaxpy.saxpy.__doc__.startswith("y = a*x + y, in place")
    stub = os.path.join(os.path.dirname(mysaxpy.__file__), "_saxpy.pyi")
    assert "def saxpy(x: ArrayLike, y: ArrayLike, a: float, *, stream: Stream = None) -> ArrayLike:" in open(stub).read()
