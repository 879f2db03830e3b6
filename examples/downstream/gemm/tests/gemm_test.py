"""mygemm from Python: the shared matmul vectors, NumPy against NumPy, the rdc kernel;
cuRAND and torch / CuPy device arrays on a GPU. The extension finds cuBLAS / cuRAND."""

import importlib.util
import os

import numpy as np
import pytest
import vectors

import cubridge
import mygemm

CASES = vectors.load(os.environ.get("MATMUL_VECTORS", "testdata/matmul.txt"))
ON_CUDA = cubridge.backend() == "cuda"
needs_cuda = pytest.mark.skipif(not ON_CUDA, reason="needs the CUDA backend (a GPU)")


def test_imports_with_the_wheel_libraries_found():
    assert "LD_LIBRARY_PATH" not in os.environ
    assert callable(mygemm.matmul)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vectors(case):
    m, k, n = (int(case[key][0]) for key in ("m", "k", "n"))
    a = np.array(case["a"], case["dtype"]).reshape(m, k)
    b = np.array(case["b"], case["dtype"]).reshape(k, n)
    c = mygemm.matmul(a, b)
    assert c.dtype == a.dtype and c.shape == (m, n)
    np.testing.assert_array_equal(c, np.array(case["want"], case["dtype"]).reshape(m, n))


def test_matmul_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((257, 129), dtype=np.float32)
    b = rng.standard_normal((129, 65), dtype=np.float32)
    np.testing.assert_allclose(mygemm.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)


def test_shapes_and_dtypes_checked():
    with pytest.raises(cubridge.InvalidArgumentError, match=r"argument 'b' has shape \(2, 3\), but k = 3 from 'a'"):
        mygemm.matmul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(cubridge.UnsupportedDtypeError, match="argument 'a' has dtype float64; matmul takes float32 or float16"):
        mygemm.matmul(np.ones((2, 2)), np.ones((2, 2)))


def test_affine_rdc_kernel():
    x = np.array([1, 2, 3], np.float32)
    assert mygemm.affine(x, 2.0, 1.0) is x
    np.testing.assert_array_equal(x, [3, 5, 7])


def test_uniform():
    if not ON_CUDA:
        with pytest.raises(cubridge.NoDeviceError, match="cuRAND's generator needs a GPU"):
            mygemm.uniform(4, 7)
        return
    u = mygemm.uniform(1 << 16, 7).to_numpy()
    assert u.min() > 0 and u.max() <= 1 and abs(u.mean() - 0.5) < 0.01
    np.testing.assert_array_equal(mygemm.uniform(100, 7).to_numpy(), u[:100])
    host = np.zeros(100, np.float32)
    mygemm.uniform(100, 7, u=host)
    np.testing.assert_array_equal(host, u[:100])


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@needs_cuda
def test_torch_device_arrays_f16():
    import torch

    a = torch.randn((64, 32), device="cuda", dtype=torch.float16)
    b = torch.randn((32, 48), device="cuda", dtype=torch.float16)
    c = torch.empty((64, 48), device="cuda", dtype=torch.float16)
    assert mygemm.matmul(a, b, c=c) is c
    torch.testing.assert_close(c.float(), (a.float() @ b.float()), rtol=1e-2, atol=1e-2)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is None, reason="CuPy is not installed")
@needs_cuda
def test_cupy_device_arrays():
    import cupy

    a = cupy.random.standard_normal((64, 32), dtype=cupy.float32)
    b = cupy.random.standard_normal((32, 16), dtype=cupy.float32)
    c = mygemm.matmul(a, b)  # a cubridge.Array on the device
    np.testing.assert_allclose(cupy.from_dlpack(c).get(), (a @ b).get(), rtol=1e-4, atol=1e-4)
