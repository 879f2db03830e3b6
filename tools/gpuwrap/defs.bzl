"""Tags and execution properties for tests that use a GPU.

    load("//tools/gpuwrap:defs.bzl", "GPU_TEST_EXEC_PROPERTIES", "GPU_TEST_TAGS")
    cc_test(name = "...", tags = GPU_TEST_TAGS, exec_properties = GPU_TEST_EXEC_PROPERTIES, ...)

`gpu` names the test as a GPU test; `resources:gpu:1` asks Bazel for one unit of
the `gpu` resource (--local_resources=gpu=<count>, which tools/bazel sets from
the machine), so that at most <count> of them run at once, each on its own GPU
under --config=gpu (//tools/gpuwrap).

Under remote execution (--config=rexec, docs/remote.md) the test asks for a
worker with a GPU: `test.gpu` puts `gpu=1` on the actions of the `test` exec
group only (the test run and its XML report), so the target's compiles and
links go to ordinary workers and never wait for a GPU one. Unless the tests run
on the CPU backend: --config=ci sets `--//tools/gpuwrap:gpu_tests_need_gpu=false`
and then they ask for no GPU worker (as --local_resources=gpu=64 lets them all
run at once here). GPU_TEST_EXEC_PROPERTIES is a select(): pass it as it is,
or join other properties to it with `|`.
"""

GPU_TEST_TAGS = [
    "gpu",
    "resources:gpu:1",
]

GPU_TEST_EXEC_PROPERTIES = select({
    Label("//tools/gpuwrap:tests_need_gpu"): {"test.gpu": "1"},
    "//conditions:default": {},
})
