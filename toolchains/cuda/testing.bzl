"""The CUDA version a build uses, for tests that check what the library reports.

"13.0" or "12.4" for the pinned toolkits (@cuda_config), "0.0" without CUDA
(--@rules_cuda//cuda:enable=false); a local toolkit's version is not checked,
so the tests then check only what holds for every build.
"""

load("@cuda_config//:defs.bzl", "CUDA_TOOLKIT", "CUDA_VERSION")

def expect_cuda_version_env():
    """env of a cc_test / py_test: CUBRIDGE_EXPECT_CUDA_VERSION=MAJOR.MINOR."""
    return select({
        Label("@rules_cuda//cuda:is_enabled"): {} if CUDA_TOOLKIT == "local" else {"CUBRIDGE_EXPECT_CUDA_VERSION": CUDA_VERSION},
        "//conditions:default": {"CUBRIDGE_EXPECT_CUDA_VERSION": "0.0"},
    })

def expect_cuda_version_args():
    """args of a go_test: -cuda_version=MAJOR.MINOR."""
    return select({
        Label("@rules_cuda//cuda:is_enabled"): [] if CUDA_TOOLKIT == "local" else ["-cuda_version=" + CUDA_VERSION],
        "//conditions:default": ["-cuda_version=0.0"],
    })
