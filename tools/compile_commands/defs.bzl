"""compile_commands_fragments: the compile commands below some targets, for tests."""

load(":aspect.bzl", "CompileCommandsInfo", "compile_commands_aspect")

def _compile_commands_fragments_impl(ctx):
    infos = [t[CompileCommandsInfo] for t in ctx.attr.targets]
    fragments = depset(transitive = [i.fragments for i in infos])
    inputs = depset(transitive = [i.inputs for i in infos])
    return [DefaultInfo(
        files = fragments,
        runfiles = ctx.runfiles(transitive_files = depset(transitive = [fragments, inputs])),
    )]

compile_commands_fragments = rule(
    implementation = _compile_commands_fragments_impl,
    doc = """The CppCompile/CudaCompile command lines below `targets`, one JSON file per
target that compiles something, with every input of those actions in the runfiles
(so a test can run a compiler front end, e.g. clangd, over them).""",
    attrs = {
        "targets": attr.label_list(
            aspects = [compile_commands_aspect],
            doc = "Targets whose compile actions (and their dependencies') are collected.",
        ),
    },
)
