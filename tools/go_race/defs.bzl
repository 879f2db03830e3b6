"""go_race_test: a go_test run again under the race detector.

rules_go builds a test under the race detector with `race = "on"`, or every Go
target with --@rules_go//go/config:race. A second go_test of the same sources
would need its srcs kept by hand beside gazelle's (gazelle rewrites the srcs of
every go_test it finds); this rule instead takes gazelle's own test and builds
it again in the race configuration (a transition on rules_go's setting): the
binary, its standard library and its cgo code all with -race. The test's env
comes along; `args` are this rule's own.
"""

_RACE = "@rules_go//go/config:race"

def _race_transition_impl(_settings, _attr):
    return {_RACE: True}

_race_transition = transition(
    implementation = _race_transition_impl,
    inputs = [],
    outputs = [_RACE],
)

def _go_race_test_impl(ctx):
    test = ctx.attr.test[0]
    executable = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = executable, target_file = test[DefaultInfo].files_to_run.executable, is_executable = True)
    providers = [DefaultInfo(
        executable = executable,
        runfiles = ctx.runfiles(files = [executable]).merge(test[DefaultInfo].default_runfiles),
    )]
    if RunEnvironmentInfo in test:
        providers.append(test[RunEnvironmentInfo])
    return providers

go_race_test = rule(
    implementation = _go_race_test_impl,
    attrs = {
        "test": attr.label(mandatory = True, cfg = _race_transition, doc = "The go_test to run under the race detector."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
    test = True,
    doc = "Runs a go_test built with rules_go's race mode.",
)
