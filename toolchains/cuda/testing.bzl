"""The CUDA version a build's flags select, for tests that check what the library reports.

--@cubridge//toolchains/cuda:mode and :version decide: "13.0" (wheels, 13), "12.4"
(wheels, 12), "0.0" (none); a local toolkit's own version is not known here, so
the tests then check only what holds for every build.
"""

load("//toolchains/cuda/private:versions.bzl", "CUDA12_VERSION", "CUDA_VERSION")

_VERSIONS = {
    "//toolchains/cuda:mode_none": "0.0",
    "//toolchains/cuda:wheels_12": CUDA12_VERSION,
    "//toolchains/cuda:wheels_13": CUDA_VERSION,
}

def expect_cuda_version_env():
    """env of a cc_test / py_test: CUBRIDGE_EXPECT_CUDA_VERSION=MAJOR.MINOR."""
    return select(dict(
        {k: {"CUBRIDGE_EXPECT_CUDA_VERSION": v} for k, v in _VERSIONS.items()},
        **{"//conditions:default": {}}
    ))

def expect_cuda_version_args():
    """args of a go_test: -cuda_version=MAJOR.MINOR."""
    return select(dict(
        {k: ["-cuda_version=" + v] for k, v in _VERSIONS.items()},
        **{"//conditions:default": []}
    ))
