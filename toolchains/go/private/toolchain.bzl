"""go_toolchain: the Go SDK and the builder, for toolchain_type //toolchains/go:toolchain."""

def _go_toolchain_impl(ctx):
    go = ctx.file.go
    return [platform_common.ToolchainInfo(
        go = go,
        goroot = go.dirname.rsplit("/bin", 1)[0],
        sdk = depset(transitive = [t[DefaultInfo].files for t in ctx.attr.sdk]),
        builder = ctx.attr.builder[DefaultInfo].files_to_run,
        version = ctx.attr.version,
    )]

go_toolchain = rule(
    implementation = _go_toolchain_impl,
    attrs = {
        "builder": attr.label(mandatory = True, executable = True, cfg = "exec", doc = "cubridge's Go builder."),
        "go": attr.label(mandatory = True, allow_single_file = True, doc = "The SDK's bin/go."),
        "sdk": attr.label_list(mandatory = True, allow_files = True, doc = "The SDK's files (GOROOT)."),
        "version": attr.string(doc = "The SDK's version, e.g. go1.27.3."),
    },
    doc = "A Go SDK as a toolchain (see providers.bzl, GoToolchainInfo, for the fields).",
)
