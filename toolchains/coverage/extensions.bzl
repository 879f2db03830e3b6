"""Module extension `coverage`: @lcov_merger for `bazel coverage` offline (repositories.bzl)."""

load(":repositories.bzl", "lcov_merger")

def _coverage_impl(_mctx):
    lcov_merger(name = "lcov_merger")

coverage = module_extension(implementation = _coverage_impl)
