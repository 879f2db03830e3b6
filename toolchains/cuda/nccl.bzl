"""The NCCL wheel the build pins, for packaging (the Python wheel's `nccl` extra)."""

load("//toolchains/cuda/private:versions.bzl", "NCCL_WHEEL")

# "nvidia-nccl-cu13==2.28.9": a requirement pip understands.
NCCL_REQUIREMENT = "{}=={}".format(NCCL_WHEEL[0], NCCL_WHEEL[1])
