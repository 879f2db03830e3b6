"""Public API of cubridge's Go rules.

    load("@cubridge//toolchains/go:defs.bzl", "go_binary", "go_library", "go_test")

Each Go package is compiled in its own action (see private/rules.bzl). The
macros default, for the calling repository, the module files to //:go.mod and
//:go.sum and the module dependencies to @go_deps//:all (see extensions.bzl):
every package of the go.mod's required modules is importable without listing
it in `deps`, compiled once and shared by every user.
"""

load("//toolchains/go/private:providers.bzl", _GoArchiveInfo = "GoArchiveInfo", _GoModuleInfo = "GoModuleInfo", _GoStdlibInfo = "GoStdlibInfo")
load("//toolchains/go/private:rules.bzl", _go_binary = "go_binary", _go_library = "go_library", _go_test = "go_test")

GoArchiveInfo = _GoArchiveInfo
GoModuleInfo = _GoModuleInfo
GoStdlibInfo = _GoStdlibInfo

_MODULE_DEFAULTS = {
    "go_deps": "@go_deps//:all",
    "go_mod": "//:go.mod",
    "go_sum": "//:go.sum",
}

def _with_defaults(kwargs):
    kwargs.pop("modcache", None)  # older BUILD files: the module cache is @go_deps's now
    return dict(_MODULE_DEFAULTS, **kwargs)

def go_library(name, **kwargs):
    _go_library(name = name, **_with_defaults(kwargs))

def go_binary(name, **kwargs):
    _go_binary(name = name, **_with_defaults(kwargs))

def go_test(name, **kwargs):
    _go_test(name = name, **_with_defaults(kwargs))
