"""Module extension `go`: the Go SDK and the module dependencies of go.mod files.

    go = use_extension("@cubridge//toolchains/go:extensions.bzl", "go")
    go.sdk()                                   # the build environment's Go (default)
    go.sdk(version = "1.26.8", sha256 = "…")   # or a pinned SDK from the module proxy
    go.module(name = "go_deps", go_mod = "//:go.mod", go_sum = "//:go.sum")
    use_repo(go, "go_sdk", "go_deps")
"""

load("//toolchains/go/private:repositories.bzl", "go_deps", "go_sdk_download", "go_sdk_local")

_sdk = tag_class(attrs = {
    "version": attr.string(doc = "Go version to fetch as golang.org/toolchain; empty: the `go` on PATH."),
    "sha256": attr.string(doc = "sha256 of the toolchain module zip."),
})

_module = tag_class(attrs = {
    "name": attr.string(default = "go_deps"),
    "go_mod": attr.label(mandatory = True),
    "go_sum": attr.label(mandatory = True),
})

def _go_impl(mctx):
    sdk = None
    for mod in mctx.modules:  # the root module comes first and wins
        for tag in mod.tags.sdk:
            sdk = sdk or tag
    if sdk and sdk.version:
        go_sdk_download(name = "go_sdk", version = sdk.version, sha256 = sdk.sha256)
    else:
        go_sdk_local(name = "go_sdk")
    seen = {}
    for mod in mctx.modules:
        for tag in mod.tags.module:
            if tag.name in seen:
                fail("go.module: two modules both named '{}'; give one another name".format(tag.name))
            seen[tag.name] = True
            go_deps(name = tag.name, go = "@go_sdk//:goroot/bin/go", go_mod = tag.go_mod, go_sum = tag.go_sum)

go = module_extension(
    implementation = _go_impl,
    tag_classes = {"module": _module, "sdk": _sdk},
)
