"""Every op against NumPy, for every dtype NumPy has, on host and cubridge.Array inputs."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest

import cubridge

DTYPES = ["float32", "float64", "int32", "int64", "float16"]
INPUTS = ["numpy", "array"]


def data(dtype: str, n: int = 1000, seed: int = 0, nonzero: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        x = rng.integers(-1000, 1000, n).astype(dtype)
    else:
        x = (rng.integers(-512, 512, n) / 8).astype(dtype)  # exact in every float dtype
    if nonzero:
        x[x == 0] = 3
    return x


def wrap(x: np.ndarray, how: str) -> Any:
    return x if how == "numpy" else cubridge.asarray(x)


def host(x: Any) -> np.ndarray:
    return x.to_numpy() if isinstance(x, cubridge.Array) else x


@pytest.mark.parametrize("how", INPUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_binary(op: str, dtype: str, how: str) -> None:
    a, b = data(dtype, seed=1), data(dtype, seed=2)
    got = getattr(cubridge, op)(wrap(a, how), wrap(b, how))
    assert type(got) is (np.ndarray if how == "numpy" else cubridge.Array)
    want = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply"}[op])(a, b)
    np.testing.assert_array_equal(host(got), want)


@pytest.mark.parametrize("how", INPUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_div(dtype: str, how: str) -> None:
    a, b = data(dtype, seed=1), data(dtype, seed=2)
    b[::7] = 0
    got = host(cubridge.div(wrap(a, how), wrap(b, how), zero_value=-5))
    safe = np.where(b == 0, 1, b)
    if dtype.startswith("int"):
        want = np.where(b == 0, -5, np.trunc(a / safe)).astype(dtype)
    else:
        want = np.where(b == 0, np.array(-5, dtype), a / safe)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_scale_fill(dtype: str) -> None:
    x, y = data(dtype, seed=3), data(dtype, seed=4)
    np.testing.assert_array_equal(cubridge.axpy(2, x, y), (2 * x + y).astype(dtype))
    np.testing.assert_array_equal(cubridge.scale(x, 3), (3 * x).astype(dtype))
    out = np.empty_like(x)
    assert cubridge.scale(x, -1, out=out) is out
    np.testing.assert_array_equal(out, -x)
    yy = y.copy()
    assert cubridge.axpy(-1, x, yy, out=yy) is yy
    np.testing.assert_array_equal(yy, (y - x).astype(dtype))
    z = np.empty(10, dtype)
    assert cubridge.fill(z, 4) is z
    np.testing.assert_array_equal(z, np.full(10, 4, dtype))


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_astype(src: str, dst: str) -> None:
    x = data(src, seed=5)
    got = cubridge.astype(x, dst)
    assert got.dtype == np.dtype(dst)
    np.testing.assert_array_equal(got, x.astype(dst))
    out = np.empty(x.shape, dst)
    assert cubridge.astype(x, out=out) is out
    np.testing.assert_array_equal(out, x.astype(dst))


def test_astype_float_to_int_truncates() -> None:
    got = cubridge.astype(np.array([1.9, -1.9, 0.5], np.float64), "int64")
    assert got.tolist() == [1, -1, 0]


@pytest.mark.parametrize("how", INPUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions(dtype: str, how: str) -> None:
    x, y = data(dtype, seed=6), data(dtype, seed=7)
    s, d = cubridge.sum(wrap(x, how)), cubridge.dot(wrap(x, how), wrap(y, how))
    lo, hi = cubridge.min(wrap(x, how)), cubridge.max(wrap(x, how))
    if dtype.startswith("int"):
        assert type(s) is int and type(d) is int and type(lo) is int and type(hi) is int
        assert s == int(x.astype(np.int64).sum())
        assert d == int(np.dot(x.astype(np.int64), y.astype(np.int64)))
    else:
        assert type(s) is float and type(d) is float and type(lo) is float
        assert s == float(x.astype(np.float64).sum())
        assert d == float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    assert lo == x.min() and hi == x.max()


def test_reductions_of_nd_arrays_cover_all_elements() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert cubridge.sum(x) == 66 and cubridge.max(x) == 11 and cubridge.min(x) == 0


def test_empty_inputs() -> None:
    e = np.empty(0, np.float32)
    assert cubridge.add(e, e).shape == (0,)
    assert cubridge.sum(e) == 0.0 and cubridge.dot(e, e) == 0.0
    with pytest.raises(ValueError):
        cubridge.min(e)
    with pytest.raises(cubridge.InvalidArgumentError):
        cubridge.max(e)


def test_nd_elementwise_keeps_shape() -> None:
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    got = cubridge.add(a, a)
    assert got.shape == (2, 3, 4)
    np.testing.assert_array_equal(got, 2 * a)
    d = cubridge.asarray(a)
    assert cubridge.mul(d, d).shape == (2, 3, 4)


def test_zero_dim() -> None:
    a = np.array(3.0)
    assert cubridge.add(a, a).shape == ()
    assert float(cubridge.add(a, a)) == 6.0
    assert cubridge.sum(a) == 3.0


def test_integer_wraps() -> None:
    a = np.array([2**31 - 1], np.int32)
    assert cubridge.add(a, np.array([1], np.int32)).tolist() == [-(2**31)]


def test_float16_scalar_results() -> None:
    x = np.array([0.5, -2.0, 65504.0], np.float16)
    assert cubridge.max(x) == 65504.0 and cubridge.min(x) == -2.0
    assert cubridge.sum(x) == 65502.5


def test_bfloat16_on_arrays() -> None:
    x = cubridge.asarray(np.array([1.0, 2.5, -3.0], np.float32), "bfloat16")
    assert x.dtype == "bfloat16" and x.itemsize == 2
    y = cubridge.add(x, x)
    assert cubridge.astype(y, "float32").to_numpy().tolist() == [2.0, 5.0, -6.0]
    assert cubridge.sum(x) == 0.5 and cubridge.max(x) == 2.5 and cubridge.min(x) == -3.0


def test_nan_in_min_max() -> None:
    x = np.array([1.0, np.nan, -1.0])
    assert np.isnan(cubridge.min(x)) and np.isnan(cubridge.max(x))


def test_copyto() -> None:
    src = np.arange(4, dtype=np.int64)
    dst = cubridge.empty(4, "int64")
    assert cubridge.copyto(dst, src) is dst
    back = np.zeros(4, np.int64)
    cubridge.copyto(back, dst)
    np.testing.assert_array_equal(back, src)


def test_stream_arguments_are_accepted() -> None:
    a = np.ones(4, np.float32)

    class CupyLike:
        ptr = 0

    class TorchLike:
        cuda_stream = 0

    class Protocol:
        def __cuda_stream__(self) -> tuple[int, int]:
            return (0, 0)

    on_instance = types.SimpleNamespace(__cuda_stream__=lambda: (0, 0))
    for s in (None, 0, CupyLike(), TorchLike(), Protocol(), on_instance):
        np.testing.assert_array_equal(cubridge.add(a, a, stream=s), 2 * a)
        assert cubridge.sum(a, stream=s) == 4.0
    cubridge.synchronize()
    cubridge.synchronize(0)


def test_stream_arguments_say_what_is_wrong() -> None:
    a = np.ones(4, np.float32)

    class Both:  # the protocol comes first
        ptr = "not a handle"

        def __cuda_stream__(self) -> tuple[int, int]:
            return (0, 0)

    assert cubridge.sum(a, stream=Both()) == 4.0
    with pytest.raises(TypeError, match="stream must be None, an int cudaStream_t"):
        cubridge.sum(a, stream="s")
    with pytest.raises(TypeError, match="its handle is not an int"):
        cubridge.sum(a, stream=types.SimpleNamespace(ptr=1.5))
    with pytest.raises(ValueError, match="non-negative cudaStream_t"):
        cubridge.sum(a, stream=-1)


def test_torch_streams_are_read_from_their_cuda_stream_getter() -> None:
    class Stream:  # as torch.cuda.Stream: a C getter, and a Python protocol calling it
        cuda_stream = 0

        def __cuda_stream__(self) -> tuple[int, int]:
            raise AssertionError("torch's stream was read through its Python protocol")

    Stream.__module__ = "torch.cuda.streams"
    assert cubridge.sum(np.ones(4, np.float32), stream=Stream()) == 4.0
