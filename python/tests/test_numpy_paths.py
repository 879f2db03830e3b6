"""NumPy's fast paths. numpy.ndarray arguments are read from their fields (numpy_import.c)
when they are C-contiguous, aligned, native-endian and of a cubridge dtype; every other
ndarray goes through the buffer protocol, with its errors. numpy.ndarray results are made
through NumPy's C API (numpy_new.c). Results are the same either way."""

import sys

import numpy as np
import pytest

import cubridge
from cubridge import _native

DTYPES = ["float32", "float64", "int32", "int64", "float16", np.longlong, np.intc]


def test_both_fast_paths_check_out():
    x = np.arange(6, dtype=np.float32)
    cubridge.add(x, x)
    # The first array's fields matched its buffer; NumPy's C API table had the ABI
    # version, ndarray type and PyArray_NewFromDescr expected, and its probe array checked.
    paths = _native._fast_paths()
    assert (paths["numpy_fields"], paths["numpy_results"]) == (True, True), paths


def assert_fresh_result(r, shape, dtype):
    assert type(r) is np.ndarray
    assert r.shape == shape and r.dtype == np.dtype(dtype)
    assert r.flags.c_contiguous and r.flags.writeable and r.flags.owndata


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 1, 3)])
def test_results_match_numpy(dtype, shape):
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    y = np.full(shape, 3, dtype=dtype)
    r = cubridge.add(x, y)
    assert_fresh_result(r, shape, dtype)
    np.testing.assert_array_equal(r, x + y)
    a = cubridge.asarray(x)
    back = a.to_numpy()
    assert_fresh_result(back, shape, dtype)
    np.testing.assert_array_equal(back, x)
    out = np.empty_like(x)
    assert cubridge.mul(x, y, out=out) is out
    np.testing.assert_array_equal(out, x * y)
    if x.size:
        assert cubridge.sum(x) == pytest.approx(float(x.astype(np.float64).sum()))


def test_the_buffer_protocol_still_judges_the_others():
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(ValueError, match="C-contiguous"):
        cubridge.add(x[::2], x[::2])
    with pytest.raises(TypeError, match="unsupported dtype"):  # big-endian: never misread
        cubridge.sum(np.arange(4, dtype=">f4"))
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cubridge.add(x[:4], x[:4], out=ro)
    with pytest.raises(TypeError, match="unsupported dtype"):
        cubridge.add(np.zeros(2, np.uint8), np.zeros(2, np.uint8))
    view = x[2:6]  # an offset view: its own data pointer
    np.testing.assert_array_equal(cubridge.add(view, view), view * 2)


def test_results_keep_the_dtype_references_balanced():
    # PyArray_NewFromDescr takes a reference to the dtype: one too few would free
    # NumPy's float32 dtype, one too many would leak it on every call.
    x = np.ones(5, np.float32)
    cubridge.add(x, x)
    before = sys.getrefcount(np.dtype(np.float32))
    for _ in range(1000):
        cubridge.add(x, x)
    after = sys.getrefcount(np.dtype(np.float32))  # not in the assert: pytest keeps its parts
    assert after == before


def test_results_come_from_numpy_empty_without_the_c_api(child):
    # A NumPy whose C API table cannot be read (here hidden before the first result):
    # results are made by numpy.empty, the same arrays.
    code = """
import importlib, numpy as np, cubridge
from cubridge import _native
for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
    try:
        importlib.import_module(name)._ARRAY_API = None
        break
    except ImportError:
        pass
x = np.arange(6, dtype=np.float64).reshape(2, 3)
r = cubridge.add(x, x)
assert type(r) is np.ndarray and r.flags.c_contiguous and r.flags.owndata, r
np.testing.assert_array_equal(r, x + x)
np.testing.assert_array_equal(cubridge.asarray(x).to_numpy(), x)
assert _native._fast_paths()["numpy_results"] is False, _native._fast_paths()
"""
    done = child(code, timeout=120)
    assert done.returncode == 0, done.stderr
