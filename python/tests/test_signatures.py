"""The ops are C functions with Python signatures (_native.bind): keywords are mapped as
Python maps them, bad calls raise Python's TypeErrors, and inspect.signature agrees with
the typing stub cubridge/_ops.pyi parameter for parameter."""

import ast
import inspect
import pathlib

import numpy as np
import pytest

import cubridge
from cubridge import _ops

BOUND = ["add", "sub", "mul", "div", "axpy", "scale", "fill", "copyto", "sum", "dot", "min", "max"]


def stub_signatures():
    """name -> [(parameter name, kind, default source or None)] from _ops.pyi."""
    tree = ast.parse(pathlib.Path(_ops.__file__).with_suffix(".pyi").read_text())
    out = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        a = fn.args
        pos_defaults = [None] * (len(a.args) - len(a.defaults)) + [ast.unparse(d) for d in a.defaults]
        params = [(p.arg, "POSITIONAL_OR_KEYWORD", d) for p, d in zip(a.args, pos_defaults)]
        params += [
            (p.arg, "KEYWORD_ONLY", None if d is None else ast.unparse(d))
            for p, d in zip(a.kwonlyargs, a.kw_defaults)
        ]
        out[fn.name] = params
    return out


@pytest.mark.parametrize("name", BOUND)
def test_signature_matches_the_stub(name):
    fn = getattr(cubridge, name)
    assert inspect.isbuiltin(fn) and fn.__module__ == "cubridge._ops"
    got = [
        (p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default))
        for p in inspect.signature(fn).parameters.values()
    ]
    assert got == stub_signatures()[name]
    assert fn.__doc__ and ">>>" in fn.__doc__  # the docstring of _ops.py, doctests included


def test_keywords_map_as_in_python():
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([3.0, 0.0], np.float32)
    o = np.empty(2, np.float32)
    assert cubridge.add(b=b, a=a, out=o) is o
    np.testing.assert_array_equal(o, [4.0, 2.0])
    third = np.float32(1) / np.float32(3)
    np.testing.assert_array_equal(cubridge.div(a, b, zero_value=-1), np.array([third, -1], np.float32))
    np.testing.assert_array_equal(cubridge.div(a, b), np.array([third, 0], np.float32))
    assert cubridge.dot(y=b, x=a, stream=None) == 3.0
    y = np.ones(2, np.float32)
    assert cubridge.axpy(2, x=a, y=y, out=y) is y
    np.testing.assert_array_equal(y, [3.0, 5.0])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda a: cubridge.add(a), "add() missing required argument 'b' (pos 2)"),
        (lambda a: cubridge.add(a, a, a), "add() takes 2 positional arguments but 3 were given"),
        (lambda a: cubridge.sum(a, None), "sum() takes 1 positional argument but 2 were given"),
        (lambda a: cubridge.add(a, a, outt=a), "add() got an unexpected keyword argument 'outt'"),
        (lambda a: cubridge.dot(a, x=a), "dot() got multiple values for argument 'x'"),
        (lambda a: cubridge.fill(a, 1, out=a), "fill() got an unexpected keyword argument 'out'"),
    ],
)
def test_bad_calls_raise_type_errors(call, message):
    with pytest.raises(TypeError) as e:
        call(np.zeros(2, np.float32))
    assert str(e.value) == message


def test_bind_refuses_unknown_ops():
    with pytest.raises(ValueError, match="no op named 'nope'"):
        cubridge._native.bind("nope", "m", "doc")
    with pytest.raises(TypeError, match="must be str"):
        cubridge._native.bind("add", "m", None)
