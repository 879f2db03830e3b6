"""Run-time search paths of the CUDA library targets (//toolchains/cuda:cublas, ...)."""

def wheel_rpaths(wheel_prefix):
    """Run-time search paths for binaries and extensions that link a wheel's libraries.

    The libraries sit in <dir>/nvidia/cu13/lib (CUDA 12: <dir>/nvidia/<library>/lib):
    beside a binary (cuda_runtime_libs lays them out so), or in site-packages one
    or two levels above an extension (the NVIDIA wheels' own layout, as torch
    and CuPy find them).

    Args:
      wheel_prefix: the wheel's directory in site-packages (nvidia/cu13, nvidia/cublas).

    Returns:
      Linker flags.
    """
    return [
        "-Wl,-rpath,$$ORIGIN/{}/lib".format(up + wheel_prefix)
        for up in ["", "../", "../../"]
    ]
