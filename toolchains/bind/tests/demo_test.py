"""Kernels bound by kernel_binding, called from Python through cubridge's C API."""

import inspect

import numpy as np
import pytest

import bind_demo
import cubridge


def test_axpy_in_place_on_numpy():
    x = np.arange(5, dtype=np.float32)
    y = np.ones(5, dtype=np.float32)
    assert bind_demo.axpy(x, y, 2.0) is y
    np.testing.assert_array_equal(y, [1, 3, 5, 7, 9])
    xd, yd = np.array([0.5, 0.25]), np.zeros(2)
    bind_demo.axpy(a=4, y=yd, x=xd)
    np.testing.assert_array_equal(yd, [2, 1])


def test_axpy_on_cubridge_arrays_and_a_stream():
    x = cubridge.asarray(np.arange(4, dtype=np.float64), memory="device")
    y = cubridge.asarray(np.ones(4), memory="device")
    s = cubridge.Stream()
    assert bind_demo.axpy(x, y, 3.0, stream=s) is y
    s.synchronize()
    np.testing.assert_array_equal(y.to_numpy(), [1, 4, 7, 10])


def test_two_dimensions_and_another_dtype():
    x = np.array([[1.9, -2.7, 3.0], [4.5, 5.0, -6.1]])
    q = bind_demo.to_int(x, 10.0)
    assert q.dtype == np.int32 and q.shape == (2, 3)
    np.testing.assert_array_equal(q, [[19, -27, 30], [45, 50, -61]])
    out = np.zeros((2, 3), np.int32)
    assert bind_demo.to_int(x.astype(np.float32), 1.0, q=out) is out
    np.testing.assert_array_equal(out, [[1, -2, 3], [4, 5, -6]])


def test_scalar_sized_output_is_a_cubridge_array():
    r = bind_demo.iota(5, 10)
    assert isinstance(r, cubridge.Array) and r.dtype == "int64"
    np.testing.assert_array_equal(r.to_numpy(), [10, 11, 12, 13, 14])
    host = np.zeros(3, np.int64)
    bind_demo.iota(3, -1, r=host)
    np.testing.assert_array_equal(host, [-1, 0, 1])


def test_errors_name_the_argument():
    x32, y64 = np.ones(3, np.float32), np.ones(3)
    with pytest.raises(cubridge.UnsupportedDtypeError, match="argument 'y' has dtype float64, but must have the dtype of 'x'"):
        bind_demo.axpy(x32, y64, 1.0)
    with pytest.raises(cubridge.UnsupportedDtypeError, match="argument 'x' has dtype int32; axpy takes float32 or float64"):
        bind_demo.axpy(np.ones(3, np.int32), np.ones(3, np.int32), 1.0)
    with pytest.raises(cubridge.InvalidArgumentError, match=r"argument 'y' has shape \(2,\), but n = 3 from 'x'"):
        bind_demo.axpy(x32, np.ones(2, np.float32), 1.0)
    with pytest.raises(cubridge.InvalidArgumentError, match=r"argument 'q' has shape \(3, 2\)"):
        bind_demo.to_int(np.ones((2, 3)), 1.0, q=np.zeros((3, 2), np.int32))
    with pytest.raises(cubridge.InvalidArgumentError, match="argument 'n' = -1 is a size"):
        bind_demo.iota(-1, 0)
    with pytest.raises(cubridge.InvalidArgumentError, match="overlap"):
        buf = np.zeros(4, np.float32)
        bind_demo.axpy(buf[:3], buf[1:], 1.0)
    with pytest.raises(ValueError, match="read-only"):
        y = np.ones(3, np.float32)
        y.flags.writeable = False
        bind_demo.axpy(x32, y, 1.0)


def test_python_argument_errors():
    with pytest.raises(TypeError, match=r"axpy\(\) missing required argument 'a'"):
        bind_demo.axpy(np.ones(1), np.ones(1))
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        bind_demo.axpy(np.ones(1), np.ones(1), 1.0, z=1)
    with pytest.raises(TypeError, match="takes 3 positional arguments but 4 were given"):
        bind_demo.axpy(np.ones(1), np.ones(1), 1.0, None)
    with pytest.raises(TypeError, match="a must be a real number"):
        bind_demo.axpy(np.ones(1), np.ones(1), "2")
    with pytest.raises(TypeError, match="n must be an int"):
        bind_demo.iota(2.0, 0)
    with pytest.raises(TypeError, match="x must be an array"):
        bind_demo.axpy([1.0], np.ones(1), 1.0)


def test_signatures_and_docstrings():
    assert str(inspect.signature(bind_demo.axpy)) == "(x, y, a, *, stream=None)"
    assert str(inspect.signature(bind_demo.to_int)) == "(x, scale, *, q=None, stream=None)"
    assert bind_demo.to_int.__doc__.startswith("q = int32(x * scale), truncated toward zero.")
    assert "x: float32 or float64 [m,n], read" in bind_demo.to_int.__doc__
