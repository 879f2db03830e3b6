"""numpy.ndarray arguments are read from their fields (numpy_import.c) when they are
C-contiguous, aligned, native-endian and of a cubridge dtype; every other ndarray goes
through the buffer protocol, with its errors. Results are the same either way."""

import numpy as np
import pytest

import cubridge
from cubridge import _native

DTYPES = ["float32", "float64", "int32", "int64", "float16", np.longlong, np.intc]


def test_the_fields_agree_with_the_buffer_protocol():
    x = np.arange(6, dtype=np.float32)
    cubridge.add(x, x)
    assert _native._numpy_fields() is True  # the first array's fields matched its buffer


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 1, 3)])
def test_results_match_numpy(dtype, shape):
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    y = np.full(shape, 3, dtype=dtype)
    np.testing.assert_array_equal(cubridge.add(x, y), x + y)
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
