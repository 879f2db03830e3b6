"""Public API of cubridge's Go rules.

    load("@cubridge//toolchains/go:defs.bzl", "go_binary", "go_library", "go_test")

The module files default to the calling repository's //:go.mod, //:go.sum and
the `go_deps` repository (see extensions.bzl).
"""

load("//toolchains/go/private:rules.bzl", _GoSourceInfo = "GoSourceInfo", _go_binary = "go_binary", _go_library = "go_library", _go_test = "go_test")

GoSourceInfo = _GoSourceInfo

_MODULE_DEFAULTS = {
    "go_mod": "//:go.mod",
    "go_sum": "//:go.sum",
}

def go_library(name, **kwargs):
    _go_library(name = name, **dict(_MODULE_DEFAULTS, **kwargs))

def go_binary(name, modcache = "@go_deps//:modcache", **kwargs):
    _go_binary(name = name, modcache = modcache, **dict(_MODULE_DEFAULTS, **kwargs))

def go_test(name, modcache = "@go_deps//:modcache", **kwargs):
    _go_test(name = name, modcache = modcache, **dict(_MODULE_DEFAULTS, **kwargs))
