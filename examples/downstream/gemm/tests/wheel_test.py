"""The mygemm wheel requires the NVIDIA wheels it was built with and cubridge's wheel,
and carries none of their files."""

import os
import platform
import re
import zipfile

# The exact wheels built with, per CUDA major (cuda_requirements).
REQUIRES = {
    "13": ["nvidia-cublas==13.1.0.3", "nvidia-curand==10.4.0.35", "cubridge-cu13==0.2.0"],
    "12": ["nvidia-cublas-cu12==12.4.5.8", "nvidia-curand-cu12==10.3.5.147", "cubridge-cu12==0.2.0"],
}


def test_wheel_requires_the_nvidia_wheels():
    # The one .whl in the directory py_wheel writes (its platform tag is derived).
    wheels = [os.path.join(os.environ["MYGEMM_WHEEL"], n) for n in os.listdir(os.environ["MYGEMM_WHEEL"])]
    assert len(wheels) == 1 and wheels[0].endswith(".whl"), wheels
    wheel = wheels[0]
    # A manylinux wheel of the target's architecture (this interpreter's: the
    # aarch64 CPython under qemu with --config=aarch64), its glibc version
    # derived from the extension.
    arch = platform.machine()
    assert re.fullmatch(rf"mygemm-0\.1\.0-cp311-abi3-manylinux_2_\d+_{arch}\.whl", os.path.basename(wheel)), wheel
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "mygemm/_gemm.abi3.so" in names
    assert "mygemm/__init__.py" in names
    assert "mygemm/_gemm.pyi" in names
    assert not [n for n in names if n.startswith(("nvidia/", "cubridge/"))], names
    requires = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    assert requires == REQUIRES[os.environ["MYGEMM_CUDA"]], requires
