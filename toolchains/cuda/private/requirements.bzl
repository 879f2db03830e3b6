"""Python requirements for wheels whose extensions link the CUDA library targets."""

load(":versions.bzl", "CUDA_LIBRARIES")

def _requirement(spec):
    return "{}=={}".format(spec.wheel, spec.version)

# {"cublas": "nvidia-cublas==13.1.0.3", ...}: exactly the wheel the build linked
# and tested, as torch pins its NVIDIA wheels. The library versions do not follow
# the CUDA version, and a newer one may need more than the build has: cuRAND
# 10.4.5 (CUDA 13.5) and cuBLAS 13.10 need libcudart.so.13, which the statically
# linked runtime does not provide (seen in a fresh venv). For py_wheel's `requires`.
CUDA_REQUIREMENTS = {name: _requirement(spec) for name, spec in CUDA_LIBRARIES.items()}
