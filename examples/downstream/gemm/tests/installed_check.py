"""Run by .ci/run in a fresh venv where the mygemm wheel (and cubridge's, whose
C API it calls) was pip-installed.

Checks that pip pulled the NVIDIA wheels the build asked for and that the
extension loads cuBLAS / cuRAND from that venv's site-packages (its run path),
nothing preloaded and no LD_LIBRARY_PATH.
"""

import importlib.metadata
import os
import sys

assert "LD_LIBRARY_PATH" not in os.environ
import cubridge  # noqa: E402
import mygemm  # noqa: E402

site = os.path.dirname(os.path.dirname(mygemm.__file__))
maps = open("/proc/self/maps").read().splitlines()
loaded = sorted({line.split()[-1] for line in maps if "/libcublas" in line or "/libcurand" in line})
want = {"libcublas.so.13", "libcublasLt.so.13", "libcurand.so.10"}
found = {os.path.basename(p) for p in loaded if p.startswith(os.path.join(site, "nvidia", "cu13", "lib"))}
cubridge_dist = [d.metadata["Name"] for d in importlib.metadata.distributions() if d.metadata["Name"].startswith("cubridge")]
versions = {d: importlib.metadata.version(d) for d in ["nvidia-cublas", "nvidia-curand", "mygemm", *cubridge_dist]}
print(f"mygemm: {len(cubridge.devices())} CUDA devices; {versions}; loaded {loaded}")
if found != want:
    sys.exit(f"expected {sorted(want)} from {site}/nvidia/cu13/lib, loaded {loaded}")
