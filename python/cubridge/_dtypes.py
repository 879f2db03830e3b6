"""The dtypes cubridge knows, and normalisation of the ways users spell them."""

from __future__ import annotations

from typing import Any

from . import _native

#: Every element type the kernels take, in the order of the C ABI's enum (read from
#: the library at import: ``cubridge_dtype_name(0 .. cubridge_dtype_count() - 1)``).
DTYPES: tuple[str, ...] = _native.DTYPES

_ALIASES = {"float": "float64", "int": "int64", "half": "float16", "double": "float64"}


def dtype_name(dtype: Any, argname: str = "dtype") -> str:
    """Return the cubridge name of ``dtype``.

    Accepts a name (``"float32"``), a NumPy dtype or scalar type (``numpy.float32``),
    a torch dtype (``torch.float32``) or the Python types ``float`` and ``int``.

    >>> import numpy as np
    >>> dtype_name(np.float16), dtype_name("int32"), dtype_name(float)
    ('float16', 'int32', 'float64')
    """
    if isinstance(dtype, str):
        name = dtype
    elif dtype is float or dtype is int:
        name = dtype.__name__
    elif hasattr(dtype, "dtype") and not isinstance(dtype, type):
        name = str(getattr(dtype.dtype, "name", dtype.dtype))  # an array
    else:
        name = (
            getattr(dtype, "name", None)
            or getattr(dtype, "__name__", None)
            or str(dtype)
        )
        try:
            import numpy as np

            name = np.dtype(dtype).name
        except (ImportError, TypeError):
            pass
    name = str(name).removeprefix("torch.")
    name = _ALIASES.get(name, name)
    if name not in DTYPES:
        raise TypeError(
            f"{argname}: unsupported dtype {dtype!r}; cubridge supports {', '.join(DTYPES)}"
        )
    return name
