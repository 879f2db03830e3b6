"""The tests' Python packages (requirements_lock.txt) for the target's CPU.

MODULE.bazel makes two pip hubs of the same hash-checked lock: @pypi (the build
machine's wheels) and @pypi_linux_aarch64 (the aarch64 wheels, pip download
--platform), for the tests of an aarch64 build. NumPy and Hypothesis ship
native code, so every test dependency comes from the hub of the target's CPU.
"""

def requirement(name, target = ""):
    """`@pypi//name` (or its `:target`, e.g. "whl"), from the target CPU's hub.

    Args:
      name: the package, as the lock names it (normalized: "numpy").
      target: a target of the hub's package other than the library ("whl").

    Returns:
      A select of a one-label list: concatenate it with other deps.
    """
    suffix = ":" + target if target else ""
    return select({
        "@platforms//cpu:aarch64": ["@pypi_linux_aarch64//" + name + suffix],
        "//conditions:default": ["@pypi//" + name + suffix],
    })
