"""The wheel built by cubridge's py_wheel: its files, its requirement, and that it
imports and runs once unpacked beside cubridge's wheel (whose C API it calls)."""

import glob
import os
import platform
import re
import subprocess
import sys
import zipfile


def one_wheel(directory):
    # platform = "auto": the wheel is the one file in the rule's directory,
    # its platform tag derived from the extension's glibc needs.
    wheels = glob.glob(os.path.join(directory, "*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contents_and_import(tmp_path):
    wheel = one_wheel(os.environ["MYSAXPY_WHEEL"])
    # The target's architecture: this interpreter's (the aarch64 CPython under
    # qemu with --config=aarch64).
    arch = platform.machine()
    assert re.fullmatch(rf"mysaxpy-0\.1\.0-cp311-abi3-manylinux_2_\d+_{arch}\.whl", os.path.basename(wheel)), wheel
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        zf.extractall(tmp_path)
    assert "mysaxpy/__init__.py" in names
    assert "mysaxpy/_saxpy.abi3.so" in names
    assert "mysaxpy/_saxpy.pyi" in names
    assert not [n for n in names if n.startswith("cubridge/")], names
    requires = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    assert len(requires) == 1 and re.fullmatch(r"cubridge-cu\d+==\d+\.\d+\.\d+", requires[0]), requires
    with zipfile.ZipFile(one_wheel(os.environ["CUBRIDGE_WHEEL"])) as zf:
        zf.extractall(tmp_path)
    code = (
        "import array, mysaxpy; y = array.array('f', [1, 1]); "
        "mysaxpy.saxpy(array.array('f', [1, 2]), y, 3.0); print(list(y))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[4.0, 7.0]"
