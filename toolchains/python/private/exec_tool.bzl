"""exec_tool: a program of the build machine, as a test's data, whatever the target.

A test's data is built for the target platform. A test script that checks
artifacts with one of the build's own tools (wheelcheck on a wheel) needs that
tool for the machine that runs the script: under --config=aarch64 an aarch64
wheelcheck could not run (the script runs on the x86-64 host, and no
binfmt_misc runs aarch64 programs for it). This rule builds the tool in the exec
configuration, as the rules that use it at build time do.
"""

def _exec_tool_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = ctx.executable.tool, is_executable = True)
    runfiles = ctx.runfiles(files = [out]).merge(ctx.attr.tool[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

exec_tool = rule(
    implementation = _exec_tool_impl,
    attrs = {
        "tool": attr.label(mandatory = True, executable = True, cfg = "exec", doc = "The program."),
    },
    executable = True,
    doc = "The program `tool`, built for the build machine (exec configuration).",
)
