"""Shared test helpers: the cross-language test vectors (tests/vectors/*.txt), and
the fixtures `cai_only` (a wrapper that exports only __cuda_array_interface__)
and `child` (runs code in a new interpreter).

The directory is $CUBRIDGE_VECTORS_DIR, else tests/vectors under the current directory,
else tests/vectors under the repository root found by walking up from this file.
"""

from __future__ import annotations

import dataclasses
import math
import os
import pathlib
import subprocess
import sys
from typing import Any, Callable, Optional

import pytest


@dataclasses.dataclass
class Vector:
    file: str
    name: str
    op: str
    dtypes: list[str]
    a: Optional[list[str]] = None
    b: Optional[list[str]] = None
    alpha: Optional[str] = None
    want: list[str] = dataclasses.field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.name}"


def vectors_dir() -> Optional[pathlib.Path]:
    env = os.environ.get("CUBRIDGE_VECTORS_DIR")
    if env:
        return pathlib.Path(env)
    local = pathlib.Path.cwd() / "tests" / "vectors"
    if local.is_dir():
        return local
    for parent in pathlib.Path(__file__).resolve().parents:
        candidate = parent / "tests" / "vectors"
        if candidate.is_dir():
            return candidate
    return None


def parse_vectors(path: pathlib.Path) -> list[Vector]:
    cases: list[Vector] = []
    current: Optional[Vector] = None
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, *rest = line.split()
        where = f"{path.name}:{lineno}"
        if key == "case":
            if current is not None or len(rest) < 3:
                raise ValueError(f"{where}: bad 'case' line")
            current = Vector(path.name, rest[0], rest[1], rest[2:])
        elif current is None:
            raise ValueError(f"{where}: '{key}' outside a case")
        elif key in ("a", "b", "want"):
            setattr(current, key, rest)
        elif key == "alpha":
            current.alpha = rest[0]
        elif key == "end":
            cases.append(current)
            current = None
        else:
            raise ValueError(f"{where}: unknown key {key!r}")
    if current is not None:
        raise ValueError(f"{path.name}: case {current.name} has no end")
    return cases


def load_vectors() -> list[Vector]:
    d = vectors_dir()
    if d is None:
        return []
    out: list[Vector] = []
    for path in sorted(d.glob("*.txt")):
        out.extend(parse_vectors(path))
    return out


def same_value(want: float, got: float) -> bool:
    """Exact comparison where NaN equals NaN."""
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return want == got


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "vector" in metafunc.fixturenames:
        cases = load_vectors()
        if not cases:
            metafunc.parametrize(
                "vector",
                [
                    pytest.param(
                        None, marks=pytest.mark.skip(reason="no test vectors found")
                    )
                ],
            )
        else:
            metafunc.parametrize("vector", cases, ids=[c.id for c in cases])


class CAIOnly:
    """Hides __dlpack__ so that only __cuda_array_interface__ is seen."""

    def __init__(self, x: Any) -> None:
        self.x = x

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return self.x.__cuda_array_interface__


def child(code: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a new interpreter that imports this one's cubridge, with `env` added."""
    e = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **env)
    return subprocess.run(
        [sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def cai_only() -> type:
    """CAIOnly: wrap an array so that only __cuda_array_interface__ is seen."""
    return CAIOnly


@pytest.fixture(name="child")
def child_fixture() -> Callable[..., subprocess.CompletedProcess]:
    """child(code, timeout=300, **env): `code` in a new interpreter (see child)."""
    return child
