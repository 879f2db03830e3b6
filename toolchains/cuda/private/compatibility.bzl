"""target_compatible_with for targets that need a CUDA toolkit."""

def requires_cuda_toolkit():
    """Skips a target in --@cubridge//toolchains/cuda:mode=none (no nvcc).

    As rules_cuda's requires_cuda(): targets that need nvcc output (PTX,
    cubins, device-link symbols) or a CUDA library are skipped there, not failed.

        cc_test(
            name = "cubin_test",
            ...
            target_compatible_with = requires_cuda_toolkit(),
        )

    Returns:
      A select() for target_compatible_with: incompatible in mode=none, else [].
    """
    return select({
        Label("//toolchains/cuda:mode_none"): ["@platforms//:incompatible"],
        "//conditions:default": [],
    })
