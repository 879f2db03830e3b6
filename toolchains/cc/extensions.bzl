"""Module extensions for C++: test dependencies and cross toolchains from the build environment."""

load(":cross.bzl", "cc_cross_toolchain")
load(":repositories.bzl", "system_googletest")

def _cc_deps_impl(_mctx):
    system_googletest(name = "googletest")

cc_deps = module_extension(implementation = _cc_deps_impl)

def _cc_cross_impl(_mctx):
    cc_cross_toolchain(
        name = "cc_linux_aarch64",
        cpu = "aarch64",
        gcc_version = "14",
        qemu = "qemu-aarch64",
        triple = "aarch64-linux-gnu",
    )

# The C/C++ cross toolchain for //platforms:linux_aarch64 (cross.bzl), registered
# as //toolchains/cc:linux_aarch64: fetched only when a build targets aarch64.
cc_cross = module_extension(implementation = _cc_cross_impl)
