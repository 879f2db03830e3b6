"""GoogleTest from the build environment (Debian's libgtest-dev in the offline rootfs).

There is no registry to fetch googletest from here, so the repository wraps the
system's static libraries and headers, found at fetch time.
"""

_LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
_INCLUDE_DIRS = ["/usr/include", "/usr/local/include"]

def _first_existing(rctx, dirs, name):
    for d in dirs:
        if rctx.path(d + "/" + name).exists:
            return d + "/" + name
    return None

def _system_googletest_impl(rctx):
    gtest_a = _first_existing(rctx, _LIB_DIRS, "libgtest.a")
    main_a = _first_existing(rctx, _LIB_DIRS, "libgtest_main.a")
    headers = _first_existing(rctx, _INCLUDE_DIRS, "gtest")
    if not (gtest_a and main_a and headers):
        fail("cubridge: GoogleTest not found (install libgtest-dev); tools/bazel's rootfs has it")
    rctx.symlink(gtest_a, "lib/libgtest.a")
    rctx.symlink(main_a, "lib/libgtest_main.a")
    rctx.symlink(headers, "include/gtest")
    rctx.file("BUILD.bazel", """\
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "gtest",
    srcs = ["lib/libgtest.a"],
    hdrs = glob(["include/gtest/**"]),
    includes = ["include"],
    linkopts = ["-lpthread"],
)

cc_library(
    name = "gtest_main",
    srcs = ["lib/libgtest_main.a"],
    deps = [":gtest"],
)
""")

system_googletest = repository_rule(
    implementation = _system_googletest_impl,
    local = True,
    doc = "GoogleTest's static libraries and headers from the system.",
)
