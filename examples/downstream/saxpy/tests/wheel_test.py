"""The wheel built by cubridge's py_wheel: its files, and that it imports once unpacked."""

import glob
import os
import re
import subprocess
import sys
import zipfile


def test_wheel_contents_and_import(tmp_path):
    # platform = "auto": the wheel is the one file in the rule's directory,
    # its platform tag derived from the extension's glibc needs.
    wheels = glob.glob(os.path.join(os.environ["MYSAXPY_WHEEL"], "*.whl"))
    assert len(wheels) == 1, wheels
    wheel = wheels[0]
    assert re.fullmatch(r"mysaxpy-0\.1\.0-cp311-abi3-manylinux_2_\d+_x86_64\.whl", os.path.basename(wheel)), wheel
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path)
    assert "mysaxpy/__init__.py" in names
    assert "mysaxpy/_saxpy.abi3.so" in names
    assert any(n.endswith(".dist-info/RECORD") for n in names)
    code = (
        "import array, mysaxpy; y = array.array('f', [1, 1]); "
        "mysaxpy.saxpy(3.0, array.array('f', [1, 2]), y); print(list(y))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[4.0, 7.0]"
