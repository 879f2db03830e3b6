"""mygemm from Python: the extension finds cuBLAS / cuRAND; on a GPU, results match NumPy."""

import os

import numpy as np
import pytest

import mygemm

needs_gpu = pytest.mark.skipif(mygemm.device_count() == 0, reason="no CUDA device")


def test_imports_with_the_wheel_libraries_found():
    assert "LD_LIBRARY_PATH" not in os.environ
    assert mygemm.device_count() >= 0


def test_shapes_checked_before_the_gpu():
    with pytest.raises(ValueError, match="do not multiply"):
        mygemm.matmul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="expected"):
        mygemm._gemm.matmul_f32(2, 2, 2, bytes(4), bytes(16), bytearray(16))


@needs_gpu
def test_matmul_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((257, 129), dtype=np.float32)
    b = rng.standard_normal((129, 65), dtype=np.float32)
    np.testing.assert_allclose(mygemm.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)


@needs_gpu
def test_uniform_and_affine():
    u = mygemm.uniform(1 << 16, seed=7)
    assert u.min() > 0 and u.max() <= 1 and abs(u.mean() - 0.5) < 0.01
    np.testing.assert_array_equal(mygemm.uniform(100, seed=7), u[:100])
    np.testing.assert_array_equal(mygemm.affine([1, 2, 3], 2.0, 1.0), [3, 5, 7])
