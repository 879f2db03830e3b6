"""The NCCL wheel the build pins, for packaging (the Python wheel's `nccl` extra)."""

load("//toolchains/cuda/private:versions.bzl", "NCCL12_WHEEL", "NCCL_WHEEL")

# "nvidia-nccl-cu13==2.28.9": a requirement pip understands.
NCCL_REQUIREMENT = "{}=={}".format(NCCL_WHEEL[0], NCCL_WHEEL[1])

# "nvidia-nccl-cu12==2.28.9": the same for --@cubridge//toolchains/cuda:version=12.
NCCL12_REQUIREMENT = "{}=={}".format(NCCL12_WHEEL[0], NCCL12_WHEEL[1])
