"""Unpacks one wheel's files below PREFIX into DEST, keeping executable bits.

Usage: unpack_wheel.py DEST PREFIX WHEEL   (run by cuda_wheel_component)

NVIDIA's wheels put a component's files under one prefix (nvidia/cu13/ for every
CUDA 13 wheel, nvidia/<library>/ for the -cu12 ones): bin/, include/, lib/,
nvvm/, the layout of NVIDIA's archive of that component. The wheel's license
(its dist-info's License.txt or LICENSE) becomes DEST/LICENSE, as in the archive.
"""

import os
import sys
import zipfile


def main(dest, prefix, wheel):
    prefix = prefix.rstrip("/") + "/"
    found = False
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            name = info.filename
            if name.startswith(prefix) and not info.is_dir():
                target = os.path.join(dest, name[len(prefix):])
            elif ".dist-info/" in name and os.path.basename(name).lower() in ("license.txt", "license"):
                target = os.path.join(dest, "LICENSE")
            else:
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                out.write(src.read())
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(target, mode)
            found = found or name.startswith(prefix)
    if not found:
        sys.exit("unpack_wheel.py: no file under {} in {}".format(prefix, wheel))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
