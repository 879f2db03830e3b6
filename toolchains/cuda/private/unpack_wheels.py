"""Unpacks the CUDA wheels into one toolkit prefix, keeping executable bits.

Usage: unpack_wheels.py DEST WHEEL...   (run by the cuda_wheels repository rule)

All cu13 wheels share the prefix nvidia/cu13/ (bin/, include/, lib/, nvvm/);
its contents are moved up to DEST so that the layout matches /usr/local/cuda.
"""

import os
import shutil
import sys
import zipfile

PREFIX = os.path.join("nvidia", "cu13")


def main(dest, wheels):
    staging = os.path.join(dest, "_unpacked")
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                path = zf.extract(info, staging)
                mode = (info.external_attr >> 16) & 0o777
                if mode:
                    os.chmod(path, mode)
    top = os.path.join(staging, PREFIX)
    for entry in os.listdir(top):
        os.rename(os.path.join(top, entry), os.path.join(dest, entry))
    shutil.rmtree(staging)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
