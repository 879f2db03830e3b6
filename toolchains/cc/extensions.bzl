"""Module extension for C++ test dependencies taken from the build environment."""

load(":repositories.bzl", "system_googletest")

def _cc_deps_impl(_mctx):
    system_googletest(name = "googletest")

cc_deps = module_extension(implementation = _cc_deps_impl)
