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
print("ok", sys.version.split()[0], cubridge.__version__, cubridge.backend(), cubridge.cuda_version())
"""


def built_wheel():
    """The wheel py_wheel built: the one .whl in the directory CUBRIDGE_WHEEL names
    (its platform tag, and so its name, is known only once its extension is built)."""
    path = pathlib.Path(os.environ["CUBRIDGE_WHEEL"]).resolve()
    wheels = sorted(path.glob("*.whl")) if path.is_dir() else [path]
    assert len(wheels) == 1, wheels
    return wheels[0]


def other_python():
    """A CPython >= 3.11 on PATH whose minor version differs from the running one."""
    mine = "python%d.%d" % sys.version_info[:2]
    for name in ["python3.13", "python3.12", "python3.11", "python3.15", "python3.14"]:
        if name != mine and shutil.which(name):
            return shutil.which(name)
    return None


def test_wheel_installs_and_runs_in_another_python(tmp_path):
    wheel = built_wheel()
    major = os.environ["CUBRIDGE_WHEEL_CUDA"]
    # The distribution names the CUDA major: cubridge-cu13 -> cubridge_cu13-0.2.0-....whl
    assert wheel.name.startswith("cubridge_cu%s-" % major) and wheel.suffix == ".whl", wheel.name
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
    # What the wheel's name says is what the library reports (mode=none: no CUDA).
    reported = result.stdout.split("(", 1)[1].split(",")[0]
    assert reported in (major, "0"), result.stdout
    print(result.stdout)


def test_wheel_declares_the_nccl_extra():
    """`pip install cubridge-cu13[nccl]` pulls the NCCL wheel the build pins (for its
    CUDA major); plain `pip install cubridge-cu13` does not (NCCL is loaded at run
    time when present). The metadata names the distribution with its CUDA major."""
    import zipfile

    wheel = built_wheel()
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        lines = zf.read(name).decode().split("\n\n", 1)[0].splitlines()
    assert "Provides-Extra: nccl" in lines
    major = os.environ["CUBRIDGE_WHEEL_CUDA"]
    assert "Name: cubridge-cu%s" % major in lines, lines
    assert "Classifier: Environment :: GPU :: NVIDIA CUDA :: %s" % major in lines, lines
    nccl = os.environ["CUBRIDGE_WHEEL_NCCL"]
    assert nccl.startswith("nvidia-nccl-cu%s==" % major), nccl
    # PEP 508 quotes marker values either way (rules_python's py_wheel: 'nccl').
    requires = [l.replace("'", '"') for l in lines if l.startswith("Requires-Dist: ")]
    assert requires == ['Requires-Dist: %s; extra == "nccl"' % nccl], requires
