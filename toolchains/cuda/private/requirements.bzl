"""Python requirements for wheels whose extensions link the CUDA library targets."""

load(":versions.bzl", "CUDA12_LIBRARIES", "CUDA_LIBRARIES")

def _requirement(spec):
    return "{}=={}".format(spec.wheel, spec.version)

# {"cublas": "nvidia-cublas==13.1.0.3", ...}: exactly the wheel the build linked
# and tested, as torch pins its NVIDIA wheels. The library versions do not follow
# the CUDA version, and a newer one may need more than the build has: cuRAND
# 10.4.5 (CUDA 13.5) and cuBLAS 13.10 need libcudart.so.13, which the statically
# linked runtime does not provide (seen in a fresh venv). For py_wheel's `requires`
# of a CUDA 13 build; cuda_requirements() follows --@cubridge//toolchains/cuda:version.
CUDA_REQUIREMENTS = {name: _requirement(spec) for name, spec in CUDA_LIBRARIES.items()}

# The same for CUDA 12 ({"cublas": "nvidia-cublas-cu12==12.4.5.8", ...}).
CUDA12_REQUIREMENTS = {name: _requirement(spec) for name, spec in CUDA12_LIBRARIES.items()}

def cuda_requirements(names):
    """The requirements of the libraries `names` for the CUDA major being built.

    Args:
      names: keys of CUDA_REQUIREMENTS ("cublas", "curand", ...).

    Returns:
      A select() of requirement lists for py_wheel's `requires`: the -cu12
      wheels under --@cubridge//toolchains/cuda:version=12, the CUDA 13 ones else.
    """
    return select({
        Label("//toolchains/cuda:version_12"): [CUDA12_REQUIREMENTS[n] for n in names],
        "//conditions:default": [CUDA_REQUIREMENTS[n] for n in names],
    })
