"""go_stdlib: the standard library, compiled once per configuration (plain,
race, asan), an output like any other (cached locally and remotely)."""

load(":context.bzl", "CC_TOOLCHAIN", "CONTEXT_ATTRS", "GO_TOOLCHAIN", "common_args", "go_context")
load(":providers.bzl", "GoStdlibInfo")

def _go_stdlib_impl(ctx):
    go = go_context(ctx)
    out = ctx.actions.declare_directory("std_" + ("race" if go.race else "asan" if go.asan else "plain"))
    args = ctx.actions.args()
    args.add("stdlib")
    common_args(go, args)
    args.add("-o", out.path)
    ctx.actions.run(
        executable = go.toolchain.builder,
        arguments = [args],
        inputs = go.inputs,
        outputs = [out],
        env = go.env,
        mnemonic = "GoStdlib",
        progress_message = "Compiling the Go standard library%s" % (" (race)" if go.race else " (asan)" if go.asan else ""),
    )
    return [GoStdlibInfo(dir = out, race = go.race, asan = go.asan), DefaultInfo(files = depset([out]))]

go_stdlib = rule(
    implementation = _go_stdlib_impl,
    attrs = CONTEXT_ATTRS,
    toolchains = [GO_TOOLCHAIN, CC_TOOLCHAIN],
    doc = "The Go standard library for the configuration's race / sanitize settings.",
)
