"""The tests' Python packages (requirements_lock.txt) for the target's CPU.

MODULE.bazel makes two pip hubs of the same hash-checked lock: @pypi (the build
machine's wheels) and @pypi_linux_aarch64 (the aarch64 wheels), for the tests of
an aarch64 build (--config=aarch64), which run an aarch64 CPython under qemu-user.
"""

def requirement(name):
    """`@pypi//name` from the hub of the target's CPU.

    Args:
      name: the package, as the lock names it (normalized: "numpy").

    Returns:
      A select of a one-label list: concatenate it with other deps, or pass it
      as pytest_test's `pytest`.
    """
    return select({
        "@platforms//cpu:aarch64": ["@pypi_linux_aarch64//" + name],
        "//conditions:default": ["@pypi//" + name],
    })
