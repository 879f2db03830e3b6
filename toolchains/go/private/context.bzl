"""What every Go action needs: the Go toolchain, the standard library of this
configuration, the C toolchain for cgo, and the builder's common arguments."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load(":providers.bzl", "GoStdlibInfo")

GO_TOOLCHAIN = Label("//toolchains/go:toolchain")
CC_TOOLCHAIN = "@bazel_tools//tools/cpp:toolchain_type"

RACE_FLAG = str(Label("//toolchains/go:race"))
SANITIZE_FLAG = str(Label("//toolchains/sanitizers:sanitize"))

# Attributes of every rule that runs Go actions.
CONTEXT_ATTRS = {
    "_race": attr.label(default = Label("//toolchains/go:race")),
    "_sanitize": attr.label(default = Label("//toolchains/sanitizers:sanitize")),
}

def mode(ctx):
    """The sanitizers of this configuration.

    Args:
      ctx: a rule context with CONTEXT_ATTRS.

    Returns:
      (race, asan), two bools.
    """
    race = ctx.attr._race[BuildSettingInfo].value
    asan = ctx.attr._sanitize[BuildSettingInfo].value == "asan"
    if race and asan:
        fail("{}: the race detector and ASan exclude each other (as in `go build -race -asan`)".format(ctx.label))
    return race, asan

def go_context(ctx):
    """What the Go actions of a rule need.

    Args:
      ctx: a rule context with CONTEXT_ATTRS and the Go and C toolchains.

    Returns:
      struct(toolchain, cc, race, asan, stdlib, env, inputs).
    """
    tc = ctx.toolchains[GO_TOOLCHAIN]
    cc = ctx.toolchains[CC_TOOLCHAIN].cc
    race, asan = mode(ctx)
    stdlib = ctx.attr._stdlib[GoStdlibInfo] if hasattr(ctx.attr, "_stdlib") else None
    return struct(
        toolchain = tc,
        cc = cc,
        race = race,
        asan = asan,
        stdlib = stdlib,
        env = {"CC": cc.compiler_executable, "PATH": "/usr/bin:/bin"},
        inputs = depset(
            [stdlib.dir] if stdlib else [],
            transitive = [tc.sdk, cc.all_files],
        ),
    )

def common_args(go, args):
    """Adds the builder's flags for the SDK, the standard library and the sanitizers.

    Args:
      go: go_context().
      args: the action's Args.
    """
    args.add("-goroot", go.toolchain.goroot)
    if go.stdlib:
        args.add("-stdlib", go.stdlib.dir.path)
    if go.race:
        args.add("-race")
    if go.asan:
        args.add("-asan")
