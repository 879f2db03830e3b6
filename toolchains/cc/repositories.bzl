"""GoogleTest from the build environment (Debian's libgtest-dev in the offline rootfs).

There is no registry to fetch googletest from here, so the repository wraps the
system's static libraries and headers, found at fetch time. Those libraries are
the build machine's (x86-64); for another target CPU (--config=aarch64) GoogleTest
is compiled from the sources libgtest-dev ships too (/usr/src/googletest).
"""

_LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
_INCLUDE_DIRS = ["/usr/include", "/usr/local/include"]
_SOURCE_DIRS = ["/usr/src/googletest/googletest", "/usr/src/gtest"]

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
    source = _first_existing(rctx, _SOURCE_DIRS, "src/gtest-all.cc")
    if source:
        rctx.symlink(rctx.path(source).dirname, "source/src")
    rctx.file("BUILD.bazel", """\
package(default_visibility = ["//visibility:public"])

# The system's libraries on its own CPU; compiled from its sources on another.
cc_library(
    name = "gtest",
    srcs = select({
        "@platforms//cpu:x86_64": ["lib/libgtest.a"],
        "//conditions:default": [],
    }),
    hdrs = glob(["include/gtest/**"]),
    # Debian's aarch64 cross g++ 14.4 crashes (internal compiler error in
    # comp_type_attributes) on TestWithParam<std::string> with the C++11 string
    # ABI (std::__cxx11, an abi_tag type); GoogleTest built from source and the
    # tests that include it (these defines reach them) use the other one there.
    # The code under test is not affected: it exports a C API.
    defines = select({
        "@platforms//cpu:x86_64": [],
        "//conditions:default": ["_GLIBCXX_USE_CXX11_ABI=0"],
    }),
    includes = ["include"],
    linkopts = ["-lpthread"],
    deps = select({
        "@platforms//cpu:x86_64": [],
        "//conditions:default": [":gtest_from_source"],
    }),
)

cc_library(
    name = "gtest_main",
    srcs = select({
        "@platforms//cpu:x86_64": ["lib/libgtest_main.a"],
        "//conditions:default": glob(["source/src/gtest_main.cc"], allow_empty = True),
    }),
    deps = [":gtest"],
)

cc_library(
    name = "gtest_from_source",
    srcs = glob(["source/src/gtest-all.cc"], allow_empty = True),
    hdrs = glob(["include/gtest/**"]),
    defines = ["_GLIBCXX_USE_CXX11_ABI=0"],
    includes = ["include"],
    deps = [":gtest_sources"],
)

# gtest-all.cc includes the other sources as "src/<file>.cc".
cc_library(
    name = "gtest_sources",
    includes = ["source"],
    textual_hdrs = glob(["source/src/*.cc", "source/src/*.h"], allow_empty = True),
)
""")

system_googletest = repository_rule(
    implementation = _system_googletest_impl,
    local = True,
    doc = "GoogleTest's static libraries and headers from the system.",
)
