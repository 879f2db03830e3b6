"""Hypothesis property tests of the Python API against NumPy references.

CI runs a short, derandomized pass (CUBRIDGE_HYPOTHESIS_EXAMPLES, default 40 examples
per property); set it higher for a longer hunt, e.g. on the GPU host:
``CUBRIDGE_HYPOTHESIS_EXAMPLES=2000 python3 -m pytest python/tests/test_properties.py``.
The seed corpus is the ``@example`` list on each property (edge values that once
mattered: NaN, -0.0, integer minimum, division by zero, empty arrays).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

import pytest

hypothesis = pytest.importorskip("hypothesis")  # the rootfs pins python3-hypothesis
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import cubridge  # noqa: E402

settings.register_profile(
    "cubridge",
    max_examples=int(os.environ.get("CUBRIDGE_HYPOTHESIS_EXAMPLES", "40")),
    deadline=None,
    derandomize=os.environ.get("CUBRIDGE_HYPOTHESIS_RANDOM") != "1",
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile("cubridge")

DTYPES = ["float32", "float64", "int32", "int64", "float16"]
MEMORY = ["host", "device", "managed", "pinned"]


def arrays(dtype: str, n: int) -> Any:
    if dtype.startswith("float"):
        elements = st.floats(width=int(dtype[5:]), allow_nan=True, allow_infinity=True)
    else:
        info = np.iinfo(dtype)
        elements = st.integers(int(info.min), int(info.max))
    return hnp.arrays(dtype, n, elements=elements)


@st.composite
def pair(draw: Any, dtypes: list[str] = DTYPES) -> tuple[np.ndarray, np.ndarray]:
    dtype = draw(st.sampled_from(dtypes))
    n = draw(st.integers(0, 300))
    return draw(arrays(dtype, n)), draw(arrays(dtype, n))


def place(x: np.ndarray, memory: str) -> Any:
    return x if memory == "host" else cubridge.asarray(x, memory=memory)


def host(x: Any) -> np.ndarray:
    return x if isinstance(x, np.ndarray) else x.to_numpy()


def same(want: np.ndarray, got: np.ndarray) -> None:
    """Bitwise-equal results, NaN equal to NaN (payloads aside)."""
    assert want.dtype == got.dtype and want.shape == got.shape
    if want.dtype.kind == "f":
        both_nan = np.isnan(want) & np.isnan(got)
        np.testing.assert_array_equal(
            np.where(both_nan, 0, want), np.where(both_nan, 0, got)
        )
    else:
        np.testing.assert_array_equal(want, got)


def wrap(x: int, dtype: str) -> int:
    bits = np.iinfo(dtype).bits
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


I32_MIN = np.array([-(2**31)], np.int32)
F32_EDGE = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, 3.4e38], np.float32)


@given(pair(), st.sampled_from(["add", "sub", "mul"]), st.sampled_from(MEMORY))
@example((I32_MIN, np.array([-1], np.int32)), "mul", "host")
@example((F32_EDGE, F32_EDGE[::-1].copy()), "add", "device")
@example((np.zeros(0, np.int64), np.zeros(0, np.int64)), "sub", "managed")
def test_binary_matches_numpy(
    ab: tuple[np.ndarray, np.ndarray], op: str, memory: str
) -> None:
    a, b = ab
    with np.errstate(all="ignore"):
        want = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply"}[op])(
            a, b
        )
    got = host(getattr(cubridge, op)(place(a, memory), place(b, memory)))
    same(want, got)


@given(pair(["int32", "int64"]), st.integers(-5, 5))
@example((I32_MIN, np.array([-1], np.int32)), 7)
@example((np.array([7, -7, 0], np.int64), np.array([0, 2, -2], np.int64)), -1)
def test_integer_div_truncates(ab: tuple[np.ndarray, np.ndarray], zero: int) -> None:
    a, b = ab
    want = np.array(
        [
            (
                wrap(zero, str(a.dtype))
                if y == 0
                else wrap(
                    abs(int(x)) // abs(int(y)) * (1 if (x < 0) == (y < 0) else -1),
                    str(a.dtype),
                )
            )
            for x, y in zip(a, b)
        ],
        a.dtype,
    )
    same(want, cubridge.div(a, b, zero_value=zero))


@given(pair(["float32", "float64"]), st.floats(allow_nan=False, width=32))
@example((F32_EDGE, np.zeros(6, np.float32)), -1.0)
def test_float_div(ab: tuple[np.ndarray, np.ndarray], zero: float) -> None:
    a, b = ab
    with np.errstate(all="ignore"):
        want = np.where(b != 0, a / np.where(b != 0, b, 1), a.dtype.type(zero)).astype(
            a.dtype
        )
    same(want, cubridge.div(a, b, zero_value=zero))


@given(
    pair(["float32", "float64"]),
    st.floats(-1e3, 1e3, width=32),
    st.sampled_from(MEMORY),
)
def test_axpy_float_is_rounded_mul_then_add(
    xy: tuple[np.ndarray, np.ndarray], alpha: float, memory: str
) -> None:
    x, y = xy
    with np.errstate(all="ignore"):
        want = (x.dtype.type(alpha) * x) + y
    yd = place(y.copy(), memory)
    got = host(cubridge.axpy(alpha, place(x, memory), yd, out=yd))
    same(want.astype(x.dtype), got)


@given(pair(["int32", "int64"]), st.integers(-(2**31), 2**31 - 1))
def test_axpy_int_wraps(xy: tuple[np.ndarray, np.ndarray], alpha: int) -> None:
    x, y = xy
    d = str(x.dtype)
    want = np.array([wrap(alpha * int(a) + int(b), d) for a, b in zip(x, y)], x.dtype)
    same(want, cubridge.axpy(alpha, x, y))


@given(st.sampled_from(DTYPES).flatmap(lambda d: arrays(d, st.integers(0, 500))))
@example(np.array([np.nan, 1.0], np.float32))
@example(np.array([-(2**63), 2**63 - 1, 1], np.int64))
def test_reductions(x: np.ndarray) -> None:
    if x.dtype.kind == "i":
        want = wrap(sum(int(v) for v in x), "int64")
        assert cubridge.sum(x) == want
        assert cubridge.dot(x, x) == wrap(sum(int(v) * int(v) for v in x), "int64")
    else:
        xs = x.astype(np.float64)
        got = cubridge.sum(x)
        finite = np.isfinite(xs).all()
        if finite and np.abs(xs).sum() < 1e300:
            tol = 1e-12 * np.abs(xs).sum() + 1e-300
            assert abs(got - math.fsum(xs)) <= tol, (got, math.fsum(xs))
        elif np.isnan(xs).any() or (np.isposinf(xs).any() and np.isneginf(xs).any()):
            assert math.isnan(got)
    if x.size == 0:
        with pytest.raises(cubridge.InvalidArgumentError):
            cubridge.min(x)
        return
    for fn, ref in ((cubridge.min, np.min), (cubridge.max, np.max)):
        got, want = fn(x), ref(x)
        if isinstance(want, np.floating) and np.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want, (fn.__name__, got, want)


def ref_convert(x: np.ndarray, dst: str) -> np.ndarray:
    if np.dtype(dst).kind == "i" and x.dtype.kind == "f":
        info = np.iinfo(dst)
        v = np.trunc(
            np.nan_to_num(
                x.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min
            )
        )
        out = np.empty(x.shape, dst)
        for i, f in enumerate(v):  # exact saturation, no float rounding of the bounds
            out[i] = (
                info.max if f >= info.max else info.min if f <= info.min else int(f)
            )
        return out
    with np.errstate(all="ignore"):
        return x.astype(dst)


@given(
    st.sampled_from(DTYPES).flatmap(lambda d: arrays(d, st.integers(0, 200))),
    st.sampled_from(DTYPES),
)
@example(np.array([np.nan, 3e9, -3e9, -0.5, 2.5], np.float64), "int32")
@example(np.array([2**24 + 1, -(2**31)], np.int32), "float32")
@example(np.array([2**31, -(2**31) - 1], np.int64), "int32")
def test_convert(x: np.ndarray, dst: str) -> None:
    # float64 -> float16 through float32 would round twice; compare only where the
    # two agree, and report where they do not.
    got = cubridge.astype(x, dst)
    same(ref_convert(x, dst), got)


@given(st.integers(2, 64), st.integers(0, 100), st.data())
def test_failed_calls_leave_out_untouched(n: int, lo: int, data: Any) -> None:
    """A call that fails (partial overlap, length mismatch) writes nothing."""
    shift = data.draw(st.integers(1, n - 1))
    buf = np.arange(256, dtype=np.float32)
    snapshot = buf.copy()
    x, out = buf[lo : lo + n], buf[lo + shift : lo + shift + n]
    y = np.ones(n, np.float32)
    with pytest.raises(ValueError, match="overlap"):
        cubridge.axpy(1.0, x, y, out=out)
    with pytest.raises(ValueError, match="overlap"):
        cubridge.scale(x, 2.0, out=out)
    with pytest.raises(ValueError, match="overlap"):
        cubridge.mul(x, y, out=out)
    with pytest.raises(ValueError, match="overlap"):
        cubridge.copyto(out, x)
    with pytest.raises(ValueError, match="length"):
        cubridge.add(y, y, out=buf[: n + 1])
    np.testing.assert_array_equal(buf, snapshot)
