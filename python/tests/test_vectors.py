"""The shared test vectors (tests/vectors/*.txt) through NumPy arrays and cubridge.Array."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import cubridge

FLOATS = ("float32", "float64", "float16", "bfloat16")
KINDS = ("numpy", "device", "managed", "pinned")


def round_to(dtype: str, v: float) -> float:
    """``v`` rounded to ``dtype`` (the text form may not be exactly representable)."""
    if dtype == "bfloat16":
        bits = int(np.array(v, np.float32).view(np.uint32))
        if not math.isnan(v):
            bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return float(np.array(bits, np.uint32).view(np.float32))
    with np.errstate(over="ignore"):  # out-of-range text values round to inf
        return float(np.array(v, dtype=dtype))


def parse(values: list[str], dtype: str) -> list[Any]:
    if dtype in FLOATS:
        return [round_to(dtype, float(v)) for v in values]
    return [int(v) if v.lstrip("+-").isdigit() else int(float(v)) for v in values]


def same(want: Any, got: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return bool(want == got) and type(want) is type(got)


def make(values: list[str], dtype: str, kind: str) -> Any:
    data = parse(values, dtype)
    if kind == "numpy":
        return np.array(data, dtype=dtype)
    if (
        dtype == "bfloat16"
    ):  # NumPy has none: convert on the library side (exact values)
        return cubridge.asarray(np.array(data, np.float32), "bfloat16", memory=kind)
    return cubridge.asarray(np.array(data, dtype=dtype), memory=kind)


def to_list(x: Any) -> list[Any]:
    if isinstance(x, cubridge.Array):
        if x.dtype == "bfloat16":
            x = cubridge.astype(x, "float32")
        x = x.to_numpy()
    return x.tolist()


def check(want: list[Any], got: list[Any]) -> None:
    assert len(want) == len(got)
    bad = [(i, w, g) for i, (w, g) in enumerate(zip(want, got)) if not same(w, g)]
    assert not bad, f"mismatches (index, want, got): {bad[:8]}"


@pytest.mark.parametrize("kind", KINDS)
def test_vector(vector: Any, kind: str) -> None:
    dtype = vector.dtypes[0]
    if kind == "numpy" and "bfloat16" in vector.dtypes:
        pytest.skip("NumPy has no bfloat16")
    op = vector.op
    alpha = float(vector.alpha) if vector.alpha is not None else 0.0
    if op in ("add", "sub", "mul", "div"):
        a, b = make(vector.a, dtype, kind), make(vector.b, dtype, kind)
        if op == "div":
            got = cubridge.div(a, b, zero_value=alpha)
        else:
            got = getattr(cubridge, op)(a, b)
        check(parse(vector.want, dtype), to_list(got))
        # out= an input (exact aliasing is allowed)
        (
            getattr(cubridge, op)(a, b, out=a)
            if op != "div"
            else cubridge.div(a, b, zero_value=alpha, out=a)
        )
        check(parse(vector.want, dtype), to_list(a))
    elif op == "axpy":
        x, y = make(vector.a, dtype, kind), make(vector.b, dtype, kind)
        check(parse(vector.want, dtype), to_list(cubridge.axpy(alpha, x, y)))
        cubridge.axpy(alpha, x, y, out=y)
        check(parse(vector.want, dtype), to_list(y))
    elif op == "scale":
        x = make(vector.a, dtype, kind)
        check(parse(vector.want, dtype), to_list(cubridge.scale(x, alpha)))
        cubridge.scale(x, alpha, out=x)
        check(parse(vector.want, dtype), to_list(x))
    elif op == "fill":
        x = make(vector.a or ["0"] * len(vector.want), dtype, kind)
        check(parse(vector.want, dtype), to_list(cubridge.fill(x, alpha)))
    elif op == "convert":
        dst = vector.dtypes[1]
        if kind == "numpy" and dst == "bfloat16":
            pytest.skip("NumPy has no bfloat16")
        got = cubridge.astype(make(vector.a, dtype, kind), dst)
        check(parse(vector.want, dst), to_list(got))
    elif op in ("sum", "dot", "min", "max"):
        x = make(vector.a, dtype, kind)
        if op == "dot":
            got = cubridge.dot(x, make(vector.b, dtype, kind))
        else:
            got = getattr(cubridge, op)(x)
        rtype = (
            dtype
            if op in ("min", "max")
            else ("float64" if dtype in FLOATS else "int64")
        )
        (want,) = parse(vector.want, rtype)
        assert same(want, got), f"want {want!r}, got {got!r}"
    else:
        pytest.fail(f"op {op!r} is not known to the Python tests")
