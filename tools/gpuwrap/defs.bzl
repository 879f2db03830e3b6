"""Tags for tests that use a GPU.

    load("//tools/gpuwrap:defs.bzl", "GPU_TEST_TAGS")
    cc_test(name = "...", tags = GPU_TEST_TAGS, ...)

`gpu` names the test as a GPU test; `resources:gpu:1` asks Bazel for one unit of
the `gpu` resource (--local_resources=gpu=<count>, which tools/bazel sets from
the machine), so that at most <count> of them run at once, each on its own GPU
under --config=gpu (//tools/gpuwrap).
"""

GPU_TEST_TAGS = [
    "gpu",
    "resources:gpu:1",
]
