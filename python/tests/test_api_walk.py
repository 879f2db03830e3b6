"""Bad input against EVERY public function, table-driven.

For each function of ``cubridge.__all__`` the table below gives a good call and the
roles of its arguments (array in, array out, scalar, stream, dtype, shape, memory).
The walker swaps one argument at a time for each bad value of its role and checks:
the specific exception (TypeError / ValueError / cubridge.Error subclasses of those),
a message that names the argument, an ``out`` left as it was (nothing half-written),
and that the library still works afterwards. ``test_every_public_function_is_walked``
fails when a function is added to the API without a row here.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

import pytest

import cubridge

N = 6
SENTINEL = 42.0  # what every `out` holds before a call that must fail
CPU = cubridge.backend() == "cpu"


def f32(n: int = N) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float32)


def out32(n: int = N) -> np.ndarray:
    return np.full(n, SENTINEL, np.float32)


def readonly(x: np.ndarray) -> np.ndarray:
    x = x.copy()
    x.flags.writeable = False
    return x


class FakeCAI:
    """A foreign CUDA array (CuPy-like) that no CPU thread may dereference."""

    def __init__(
        self, ptr: int = 0x1000, n: int = N, typestr: str = "<f4", **extra: Any
    ):
        self.__cuda_array_interface__ = dict(
            shape=(n,), typestr=typestr, data=(ptr, False), version=3, strides=None
        )
        self.__cuda_array_interface__.update(extra)


class BrokenDLPack:
    """__dlpack__ that raises, or returns something that is not a capsule."""

    def __init__(self, result: Any) -> None:
        self.result = result

    def __dlpack__(self, **kwargs: Any) -> Any:
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


# Bad values of each role: (id, value factory, exception, message fragment or None).
# A fragment "{name}" is replaced by the argument's name.
BAD_ARRAYS: list[tuple[str, Callable[[], Any], Any, Any]] = [
    ("None", lambda: None, TypeError, "{name} must be an array"),
    ("list", lambda: [1.0] * N, TypeError, "{name} must be an array"),
    ("int", lambda: 3, TypeError, "{name} must be an array"),
    ("str", lambda: "abc", TypeError, "{name} must be an array"),
    ("object", lambda: object(), TypeError, "{name} must be an array"),
    ("bytes", lambda: b"\0" * 24, TypeError, "{name}"),
    ("uint8", lambda: np.ones(N, np.uint8), TypeError, "{name} has unsupported dtype"),
    ("bool", lambda: np.ones(N, bool), TypeError, "{name}"),
    ("complex", lambda: np.ones(N, np.complex64), TypeError, "{name}"),
    ("big-endian", lambda: np.ones(N, ">f4"), TypeError, "{name}"),
    ("strided", lambda: f32(2 * N)[::2], ValueError, "{name} must be C-contiguous"),
    ("dlpack raises", lambda: BrokenDLPack(RuntimeError("boom")), RuntimeError, "boom"),
    ("dlpack not a capsule", lambda: BrokenDLPack(42), (TypeError, ValueError), None),
    (
        "cai not a dict",
        lambda: type("C", (), {"__cuda_array_interface__": 3})(),
        (TypeError, ValueError),
        "{name}",
    ),
    (
        "cai pointer not an int",
        lambda: FakeCAI(ptr="0x1000"),  # type: ignore[arg-type]
        TypeError,
        "{name}: __cuda_array_interface__ 'data' must be",
    ),
    (
        "dlpack device junk",
        lambda: type(
            "D", (), {"__dlpack__": lambda s, **k: None, "__dlpack_device__": lambda s: None}
        )(),
        TypeError,
        "{name}.__dlpack_device__() must return",
    ),
    (
        "cai no data",
        lambda: type("C", (), {"__cuda_array_interface__": {"shape": (N,)}})(),
        (TypeError, ValueError),
        "{name}",
    ),
]
# A foreign device array: on the CPU backend it must be refused, never read.
if CPU:
    BAD_ARRAYS.append(("foreign CUDA array", lambda: FakeCAI(), ValueError, "{name}"))
else:
    BAD_ARRAYS.append(
        (
            "CUDA array of bad dtype",
            lambda: FakeCAI(0, typestr="<u1"),
            TypeError,
            "{name}",
        )
    )
# Bad only next to the other operands: wrong dtype, length or rank.
MISMATCHED = [
    ("float64", lambda: np.ones(N), TypeError, "{name} has dtype float64"),
    ("short", lambda: f32(N - 1), ValueError, "{name} has length"),
    ("long", lambda: f32(N + 1), ValueError, "{name} has length"),
    ("2-D", lambda: np.ones((2, N // 2), np.float32), ValueError, "{name}"),
]
READ_ONLY = [("read-only", lambda: readonly(f32()), ValueError, "{name} is read-only")]
NOT_NONE = [c for c in BAD_ARRAYS if c[0] != "None"]
BAD_SCALARS = [
    ("None", lambda: None, TypeError, "{name} must be a real number"),
    ("str", lambda: "2", TypeError, "{name} must be a real number"),
    ("list", lambda: [2.0], TypeError, "{name} must be a real number"),
    ("complex", lambda: 1j, TypeError, "{name} must be a real number"),
]
BAD_STREAMS = [
    ("str", lambda: "s", TypeError, "stream must be"),
    ("negative", lambda: -1, ValueError, "stream"),
    ("huge", lambda: 2**70, (ValueError, OverflowError), "stream"),
    ("object", lambda: object(), TypeError, "stream must be"),
    ("float", lambda: 1.5, TypeError, "stream must be"),
]
BAD_DTYPES = [
    ("uint8", lambda: "uint8", TypeError, "unsupported dtype"),
    ("complex", lambda: np.complex64, TypeError, "unsupported dtype"),
    ("nonsense", lambda: "float33", TypeError, "dtype"),
    ("int", lambda: 99, TypeError, "dtype"),
    ("object", lambda: object(), TypeError, "dtype"),
]
BAD_SHAPES = [
    ("negative", lambda: -1, ValueError, ">= 0"),
    ("str", lambda: "3", TypeError, "shape"),
    ("float", lambda: (2, 1.5), TypeError, "ints"),
    ("too large", lambda: (2**40, 2**40), ValueError, "too large"),
    ("too many dims", lambda: (1,) * 65, ValueError, None),
    ("None", lambda: None, TypeError, None),
]
BAD_MEMORY = [
    ("host", lambda: "host", ValueError, "memory must be"),
    ("None", lambda: None, (TypeError, ValueError), "memory"),
    ("int", lambda: 1, (TypeError, ValueError), "memory"),
]
BAD_DEVICES = [
    ("str", lambda: "cuda:0", TypeError, "device must be"),
    ("float", lambda: 0.5, TypeError, "device must be"),
    ("bool", lambda: True, TypeError, "device must be"),
    ("negative", lambda: -1, ValueError, "device"),
    ("absent", lambda: 4096, ValueError, "4096"),  # the library names the device
]
ROLES = {
    "in": BAD_ARRAYS + MISMATCHED,  # an operand among others
    "in1": BAD_ARRAYS,  # the only array input: any length, dtype, rank will do
    "out": NOT_NONE + MISMATCHED + READ_ONLY,  # optional out= (None allocates)
    "out1": BAD_ARRAYS + READ_ONLY,  # written in place, the only array
    "dst": BAD_ARRAYS + MISMATCHED + READ_ONLY,  # a required output among others
    "scalar": BAD_SCALARS,
    "stream": BAD_STREAMS,
    "dtype": BAD_DTYPES,
    "shape": BAD_SHAPES,
    "memory": BAD_MEMORY,
    "device": BAD_DEVICES,
}

# name -> (good arguments as a function of fresh values, roles: arg name -> role).
# Arguments are passed by keyword where the signature allows, else by position.
API: dict[str, tuple[Callable[[], dict[str, Any]], dict[str, str]]] = {
    **{
        op: (
            lambda: dict(a=f32(), b=f32(), out=out32()),
            {"a": "in", "b": "in", "out": "out", "stream": "stream"},
        )
        for op in ("add", "sub", "mul")
    },
    "div": (
        lambda: dict(a=f32(), b=f32(), zero_value=0.0, out=out32()),
        {
            "a": "in",
            "b": "in",
            "out": "out",
            "zero_value": "scalar",
            "stream": "stream",
        },
    ),
    "axpy": (
        lambda: dict(alpha=2.0, x=f32(), y=f32(), out=out32()),
        {"alpha": "scalar", "x": "in", "y": "in", "out": "out", "stream": "stream"},
    ),
    "scale": (
        lambda: dict(x=f32(), alpha=2.0, out=out32()),
        {"x": "in1", "alpha": "scalar", "out": "out", "stream": "stream"},
    ),
    "fill": (
        lambda: dict(x=out32(), value=1.0),
        {"x": "out1", "value": "scalar", "stream": "stream"},
    ),
    "astype": (
        lambda: dict(x=f32(), dtype="float64"),
        {"x": "in1", "dtype": "dtype", "stream": "stream"},
    ),
    "convert": (
        lambda: dict(x=f32(), dtype="int32"),
        {"x": "in1", "dtype": "dtype", "stream": "stream"},
    ),
    "copyto": (
        lambda: dict(dst=out32(), src=f32()),
        {"dst": "dst", "src": "in", "stream": "stream"},
    ),
    "sum": (lambda: dict(x=f32()), {"x": "in1", "stream": "stream"}),
    "min": (lambda: dict(x=f32()), {"x": "in1", "stream": "stream"}),
    "max": (lambda: dict(x=f32()), {"x": "in1", "stream": "stream"}),
    "dot": (lambda: dict(x=f32(), y=f32()), {"x": "in", "y": "in", "stream": "stream"}),
    "empty": (
        lambda: dict(shape=N, dtype="float32", memory="device"),
        {"shape": "shape", "dtype": "dtype", "memory": "memory", "device": "device"},
    ),
    "zeros": (
        lambda: dict(shape=N, dtype="float32", memory="device"),
        {
            "shape": "shape",
            "dtype": "dtype",
            "memory": "memory",
            "device": "device",
            "stream": "stream",
        },
    ),
    "full": (
        lambda: dict(shape=N, value=1.0, dtype="float32", memory="device"),
        {
            "shape": "shape",
            "value": "scalar",
            "dtype": "dtype",
            "memory": "memory",
            "device": "device",
            "stream": "stream",
        },
    ),
    "asarray": (
        lambda: dict(obj=f32(), memory="device"),
        {"memory": "memory", "dtype": "dtype", "device": "device", "stream": "stream"},
    ),
    "from_numpy": (
        lambda: dict(a=f32(), memory="device"),
        {"memory": "memory", "device": "device", "stream": "stream"},
    ),
    "memory_stats": (lambda: dict(), {"device": "device"}),
    "empty_cache": (lambda: dict(), {"device": "device"}),
    "synchronize": (lambda: dict(), {"stream": "stream"}),
    # No arguments: only the good call and the keep-working check.
    "backend": (lambda: dict(), {}),
    "devices": (lambda: dict(), {}),
    "cuda_version": (lambda: dict(), {}),
    "driver_version": (lambda: dict(), {}),
    "mem_info": (lambda: dict(), {}),
}

# Role/bad-value pairs that are legitimately accepted (documented behaviour).
ACCEPTED = {
    # asarray/from_numpy go through NumPy for anything that is not an array: lists work.
    ("asarray", "dtype", "int"),
    # A 2-D input to the elementwise ops is fine when every operand is 2-D; only the
    # mismatch is an error, and the walker changes one operand at a time.
}


def public_functions() -> list[str]:
    return sorted(
        n
        for n in cubridge.__all__
        if callable(getattr(cubridge, n)) and not isinstance(getattr(cubridge, n), type)
    )


def test_every_public_function_is_walked() -> None:
    missing = set(public_functions()) - set(API)
    assert not missing, f"public functions without a row in API: {sorted(missing)}"


def sanity() -> None:
    """The library still works: a host op and a device op, checked."""
    np.testing.assert_array_equal(cubridge.add(f32(), f32()), 2 * f32())
    d = cubridge.asarray(f32())
    assert cubridge.sum(cubridge.mul(d, d)) == float((f32() ** 2).sum())


def cases() -> list[Any]:
    out = []
    for fname, (_, roles) in sorted(API.items()):
        for arg, role in sorted(roles.items()):
            for bad_id, make, exc, msg in ROLES[role]:
                if (fname, arg, bad_id) in ACCEPTED:
                    continue
                out.append(
                    pytest.param(
                        fname, arg, make, exc, msg, id=f"{fname}-{arg}-{bad_id}"
                    )
                )
    return out


ALL_CASES = cases()


def call(fname: str, kwargs: dict[str, Any]) -> Any:
    fn = getattr(cubridge, fname)
    return fn(**kwargs)


@pytest.mark.parametrize("fname", sorted(API))
def test_good_call(fname: str) -> None:
    make, _ = API[fname]
    call(fname, make())
    sanity()


@pytest.mark.parametrize("fname,arg,make,exc,msg", ALL_CASES)
def test_bad_argument(
    fname: str, arg: str, make: Callable[[], Any], exc: Any, msg: Any
) -> None:
    good, _ = API[fname]
    kwargs = good()
    kwargs[arg] = make()
    outs = {
        k: v
        for k, v in kwargs.items()
        if isinstance(v, np.ndarray) and v.flags.writeable
    }
    before = {k: v.copy() for k, v in outs.items()}
    with pytest.raises(exc) as info:
        call(fname, kwargs)
    if msg is not None:
        assert msg.format(name=arg) in str(info.value), str(info.value)
    status_name = getattr(info.value, "status_name", None)
    assert status_name is None or str(info.value) != status_name, "the library's message was lost"
    for k, v in outs.items():
        if k != arg:  # the bad value itself may be anything
            np.testing.assert_array_equal(v, before[k], err_msg=f"{k} was written")
    sanity()


def test_cases_count() -> None:
    # The figure reported: how many bad inputs the walker tries.
    assert len(ALL_CASES) > 300, len(ALL_CASES)


# ---- overlap, aliasing, zero length, huge sizes -----------------------------


@pytest.mark.parametrize("with_stream", [False, True], ids=["no-stream", "stream"])
@pytest.mark.parametrize("fname", ["add", "sub", "mul", "div"])
def test_partial_overlap_refused_out_intact(fname: str, with_stream: bool) -> None:
    # With a stream the op runs on a wrapper of it, released after the op: a library
    # call, which clears the library's message, so the message must be read first (it
    # came out as the bare 'INVALID_ARGUMENT'). The CPU backend takes any handle.
    stream = (12345 if CPU else cubridge.Stream()) if with_stream else None
    buf = np.arange(12, dtype=np.float32)
    snapshot = buf.copy()
    message = f"cubridge_{fname}: arguments 'out' and 'a' partially overlap"
    with pytest.raises(ValueError, match=message):
        getattr(cubridge, fname)(buf[:8], buf[:8], out=buf[2:10], stream=stream)
    np.testing.assert_array_equal(buf, snapshot)
    sanity()


def test_overlap_axpy_scale_convert_copyto() -> None:
    buf = np.arange(12, dtype=np.float32)
    snapshot = buf.copy()
    with pytest.raises(ValueError, match="overlap"):
        cubridge.axpy(2.0, buf[:8], buf[:8].copy(), out=buf[3:11])
    with pytest.raises(ValueError, match="overlap"):
        cubridge.scale(buf[:8], 2.0, out=buf[1:9])
    with pytest.raises(ValueError):
        cubridge.copyto(buf[1:9], buf[:8])
    raw = np.zeros(16, np.float32)
    with pytest.raises(ValueError):
        # a float64 view over float32 memory, offset by one element: partial overlap
        cubridge.astype(raw[:8], "float64", out=raw.view(np.float64))
    np.testing.assert_array_equal(buf, snapshot)
    sanity()


def test_exact_aliasing_is_fine() -> None:
    x = f32()
    cubridge.add(x, x, out=x)
    np.testing.assert_array_equal(x, 2 * f32())
    cubridge.scale(x, 0.5, out=x)
    np.testing.assert_array_equal(x, f32())
    y = np.full(N, 10, np.float32)
    cubridge.axpy(2.0, x, y, out=x)  # one pass: x is read before it is written
    np.testing.assert_array_equal(x, 2 * f32() + 10)
    np.testing.assert_array_equal(y, np.full(N, 10, np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16"])
def test_zero_length_everywhere(dtype: str) -> None:
    z = np.zeros(0, dtype)
    for op in (cubridge.add, cubridge.sub, cubridge.mul, cubridge.div):
        assert op(z, z).shape == (0,)
    assert cubridge.axpy(1, z, z).shape == (0,)
    assert cubridge.scale(z, 2).shape == (0,)
    assert cubridge.fill(z, 1).shape == (0,)
    assert cubridge.astype(z, "float64").shape == (0,)
    assert cubridge.copyto(z, z).shape == (0,)
    assert cubridge.sum(z) == 0 and cubridge.dot(z, z) == 0
    for red in (cubridge.min, cubridge.max):
        with pytest.raises(cubridge.InvalidArgumentError):
            red(z)
    for memory in ("device", "managed", "pinned"):
        a = cubridge.empty(0, dtype, memory=memory)
        assert a.size == 0 and a.nbytes == 0
        assert cubridge.asarray(z, memory=memory).size == 0
    sanity()


@pytest.mark.parametrize("memory", ["device", "managed", "pinned"])
def test_huge_allocations_are_refused_cleanly(memory: str) -> None:
    # Larger than any machine: refused before anything is touched. (Never a managed
    # request near the card's free memory: that can hang a real GPU.)
    for n in (2**60 // 8, 2**63 // 8 - 1):
        with pytest.raises(cubridge.OutOfMemoryError) as info:
            cubridge.empty(n, "float64", memory=memory)
        assert info.value.status_name == "OUT_OF_MEMORY"
        assert str(info.value)
    with pytest.raises(ValueError, match="too large"):
        cubridge.empty((2**32, 2**32), "float64", memory=memory)
    sanity()


def test_asarray_rejects_lossy_dtypes() -> None:
    for obj in (None, [1 + 2j], ["a"], np.array([object()]), np.ones(2, "M8[s]")):
        with pytest.raises(TypeError, match="unsupported dtype"):
            cubridge.asarray(obj)
    with pytest.raises(TypeError, match="unsupported dtype"):
        cubridge.from_numpy(np.ones(3, np.complex128))
    sanity()


# ---- no GPU: the CUDA backend asked for on a machine without one -------------

NO_GPU_CHILD = r"""
import cubridge, numpy as np
errs = 0
x = np.ones(3)
for call in (
    lambda: cubridge.add(x, x),
    lambda: cubridge.sum(x),
    lambda: cubridge.empty(4),
    lambda: cubridge.mem_info(),
    lambda: cubridge.synchronize(),
    lambda: cubridge.fill(x, 1.0),
    lambda: cubridge.add(x, x),  # the next call after an error is an error again, no crash
):
    try:
        call()
    except (cubridge.DriverError, cubridge.NoDeviceError) as e:
        assert str(e) and e.status_name in ("DRIVER", "NO_DEVICE"), e
        errs += 1
assert cubridge.backend() == "cuda"
assert cubridge.devices() == []
np.testing.assert_array_equal(x, np.ones(3))  # nothing half-written
print("errors", errs)
"""


@pytest.mark.skipif(
    os.path.exists("/dev/nvidiactl"), reason="needs a machine without a GPU"
)
def test_no_gpu_every_call_is_a_clean_error(child: Any) -> None:
    out = child(NO_GPU_CHILD, timeout=120, CUBRIDGE_BACKEND="cuda")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["errors", "7"], out.stdout
