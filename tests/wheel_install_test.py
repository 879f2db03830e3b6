"""Installs the built wheel into a fresh virtual environment of a different CPython
than the build's, imports it there and runs `add` (no NumPy: array.array is enough)."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

# Run inside the other interpreter: the buffer protocol path, no third-party packages.
CHECK = """
import array, cubridge, sys
a = array.array("f", [1.0, 2.0, 3.5])
b = array.array("f", [0.5, -2.0, 4.0])
out = array.array("f", [0.0] * 3)
cubridge.add(a, b, out=out)
assert list(out) == [1.5, 0.0, 7.5], list(out)
print("ok", sys.version.split()[0], cubridge.__version__, cubridge.backend())
"""


def other_python():
    """A CPython >= 3.11 on PATH whose minor version differs from the running one."""
    mine = "python%d.%d" % sys.version_info[:2]
    for name in ["python3.13", "python3.12", "python3.11", "python3.15", "python3.14"]:
        if name != mine and shutil.which(name):
            return shutil.which(name)
    return None


def test_wheel_installs_and_runs_in_another_python(tmp_path):
    wheel = pathlib.Path(os.environ["CUBRIDGE_WHEEL"]).resolve()
    assert wheel.name.startswith("cubridge-") and wheel.suffix == ".whl"
    python = other_python()
    if python is None:
        pytest.fail("no second CPython >= 3.11 on PATH (tools/bazel's rootfs has python3.13)")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    vpython = str(venv / "bin" / "python")
    subprocess.run(
        [vpython, "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CUBRIDGE_BACKEND": "cpu"}
    result = subprocess.run(
        [vpython, "-c", CHECK], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok "), result.stdout
    print(result.stdout)


def test_wheel_declares_the_nccl_extra():
    """`pip install cubridge[nccl]` pulls the NCCL wheel the build pins; plain
    `pip install cubridge` does not (NCCL is loaded at run time when present)."""
    import zipfile

    wheel = pathlib.Path(os.environ["CUBRIDGE_WHEEL"]).resolve()
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        lines = zf.read(name).decode().split("\n\n", 1)[0].splitlines()
    assert "Provides-Extra: nccl" in lines
    requires = [l for l in lines if l.startswith("Requires-Dist: ")]
    assert requires == ['Requires-Dist: nvidia-nccl-cu13==2.28.9; extra == "nccl"'], requires
