"""myquant from Python: the shared vectors on NumPy and cubridge.Array, 2-D shapes, errors."""

import os

import numpy as np
import pytest
import vectors

import cubridge
import myquant

CASES = vectors.load(os.environ.get("QUANTIZE_VECTORS", "testdata/quantize.txt"))


def arrays(case):
    shape = (int(case["m"][0]), int(case["n"][0]))
    x = np.array(case["x"], case["dtype"]).reshape(shape)
    want = np.array(case["want"], np.float64).clip(-(2**31), 2**31 - 1).astype(np.int32).reshape(shape)
    return x, want


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vectors_numpy(case):
    x, want = arrays(case)
    q = myquant.quantize(x, case["scale"][0])
    assert q.dtype == np.int32 and q.shape == x.shape
    np.testing.assert_array_equal(q, want)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vectors_cubridge_arrays(case):
    x, want = arrays(case)
    q = myquant.quantize(cubridge.asarray(x), case["scale"][0])
    assert isinstance(q, cubridge.Array) and q.dtype == "int32" and q.shape == x.shape
    np.testing.assert_array_equal(q.to_numpy(), want)
    out = np.full(x.shape, 7, np.int32)
    assert myquant.quantize(x, case["scale"][0], q=out) is out
    np.testing.assert_array_equal(out, want)


def test_errors_name_the_argument():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(cubridge.InvalidArgumentError, match=r"argument 'q' has shape \(3, 2\), but m = 2 from 'x'"):
        myquant.quantize(x, 1.0, q=np.zeros((3, 2), np.int32))
    with pytest.raises(cubridge.UnsupportedDtypeError, match="argument 'q' has dtype int64; quantize takes int32 there"):
        myquant.quantize(x, 1.0, q=np.zeros((2, 3), np.int64))
    with pytest.raises(cubridge.InvalidArgumentError, match=r"argument 'x' has 1 dimension \(shape \(6,\)\), but quantize declares x\[m,n\]"):
        myquant.quantize(np.ones(6, np.float32), 1.0)
    with pytest.raises(cubridge.InvalidArgumentError, match="quantize: scale is 0"):
        myquant.quantize(x, 0.0)
