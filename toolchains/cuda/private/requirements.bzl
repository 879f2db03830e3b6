"""Python requirements for wheels whose extensions link the CUDA library targets."""

load("@cuda_config//:defs.bzl", "CUDA_MAJOR")
load(":versions.bzl", "CUDA12_LIBRARIES", "CUDA_LIBRARIES", "NCCL12_WHEEL", "NCCL_WHEEL")

def _requirement(spec):
    return "{}=={}".format(spec.wheel, spec.version)

# {"cublas": "nvidia-cublas==13.1.0.3", ...}: exactly the wheel the build linked
# and tested, as torch pins its NVIDIA wheels. The library versions do not follow
# the CUDA version, and a newer one may need more than the build has: cuRAND
# 10.4.5 (CUDA 13.5) and cuBLAS 13.10 need libcudart.so.13, which the statically
# linked runtime does not provide (seen in a fresh venv). For py_wheel's `requires`
# of a CUDA 13 build; cuda_requirements() follows the toolkit built with (@cuda_config).
CUDA_REQUIREMENTS = {name: _requirement(spec) for name, spec in CUDA_LIBRARIES.items()}

# The same for CUDA 12 ({"cublas": "nvidia-cublas-cu12==12.4.5.8", ...}).
CUDA12_REQUIREMENTS = {name: _requirement(spec) for name, spec in CUDA12_LIBRARIES.items()}

def cuda_requirements(names):
    """The requirements of the libraries `names` for the CUDA major being built.

    Args:
      names: keys of CUDA_REQUIREMENTS ("cublas", "curand", ...).

    Returns:
      The -cu12 wheels when the toolkit is CUDA 12 (@cuda_config), the CUDA 13 ones else.
    """
    table = CUDA12_REQUIREMENTS if CUDA_MAJOR == "12" else CUDA_REQUIREMENTS
    return [table[n] for n in names]

# "nvidia-nccl-cu13==2.28.9" (CUDA 12: "nvidia-nccl-cu12==..."): the NCCL wheel
# the build pins, a requirement pip understands (the Python wheel's `nccl` extra).
NCCL_REQUIREMENT = "{}=={}".format(*(NCCL12_WHEEL if CUDA_MAJOR == "12" else NCCL_WHEEL)[:2])
