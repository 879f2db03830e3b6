"""The Python front end against the C ABI's own tables (one source of truth).

``_native._abi_tables()`` asks the library now (``cubridge_dtype_name/size``,
``cubridge_status_name``, ``cubridge_memory_name``); everything Python users see
(``cubridge.DTYPES``, the dtype names accepted, the exception classes, the memory
kinds) must agree with it, entry by entry.
"""

from __future__ import annotations

import numpy as np
import pytest

import cubridge
from cubridge import _native

TABLES = _native._abi_tables()


def test_dtypes_are_the_abi_table() -> None:
    names = tuple(name for name, _ in TABLES["dtypes"])
    assert cubridge.DTYPES == names == _native.DTYPES
    assert len(set(names)) == len(names) > 0


@pytest.mark.parametrize("code,row", list(enumerate(TABLES["dtypes"])))
def test_each_dtype_by_name_and_code(code: int, row: tuple[str, int]) -> None:
    name, size = row
    assert _native.dtype_size(name) == size == _native.dtype_size(code)
    a = cubridge.empty(3, name)
    assert a.dtype == name and a.itemsize == size and a.nbytes == 3 * size
    if name != "bfloat16":  # NumPy has no bfloat16
        assert np.dtype(name).itemsize == size


def test_unknown_dtype_code_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown dtype code"):
        _native.dtype_size(len(TABLES["dtypes"]))


def _class_name(status_name: str) -> str:
    return "".join(w.capitalize() for w in status_name.split("_")) + "Error"


def test_every_status_has_its_exception_class() -> None:
    statuses = TABLES["statuses"]
    assert statuses[0] == "OK" and _native.STATUS_NAMES == statuses
    for name in statuses[1:]:
        cls = getattr(cubridge, _class_name(name), None)
        if name == "LAUNCH_FAILED":  # the one class Python names differently
            cls = cubridge.LaunchError
        assert cls is not None, f"no exception class for status {name}"
        assert issubclass(cls, cubridge.Error)


def test_raised_errors_carry_the_abi_status() -> None:
    with pytest.raises(cubridge.InvalidArgumentError) as info:
        cubridge.min(np.zeros(0, np.float32))  # the library refuses min of nothing
    e = info.value
    assert TABLES["statuses"][e.status] == e.status_name == "INVALID_ARGUMENT"


def test_memory_kinds_are_the_abi_table() -> None:
    kinds = TABLES["memory"]
    assert kinds[:1] == ("host",) and _native.MEMORY_NAMES == kinds
    for kind in kinds[1:]:
        assert cubridge.empty(1, memory=kind).memory == kind
    with pytest.raises(ValueError, match="memory must be"):
        cubridge.empty(1, memory=kinds[0])  # host memory is not ours to allocate
