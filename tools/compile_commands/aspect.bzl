"""compile_commands_aspect: the C, C++ and CUDA compile commands of a build graph.

Walks deps/cdeps/data from the targets it is applied to and records, for every
CppCompile and CudaCompile action, its command line and source. The result
(CompileCommandsInfo) feeds //tools/compile_commands's tests; `bazel run
//tools:compile_commands` reads the same actions through `bazel aquery`.
"""

CompileCommandsInfo = provider(
    doc = "Compile commands of a target and everything it depends on.",
    fields = {
        "fragments": "depset of JSON files, each a list of {\"arguments\": [...]} objects (one per compile action)",
        "inputs": "depset of every input file of those compile actions (sources, headers, toolkit files)",
    },
)

_MNEMONICS = ["CppCompile", "CudaCompile"]
_ATTRS = ["deps", "cdeps", "data", "srcs", "src", "implementation_deps", "targets"]

def _transitive(ctx):
    out = []
    for name in _ATTRS:
        value = getattr(ctx.rule.attr, name, None)
        for dep in (value if type(value) == "list" else [value]):
            if type(dep) == "Target" and CompileCommandsInfo in dep:
                out.append(dep[CompileCommandsInfo])
    return out

def _compile_commands_aspect_impl(target, ctx):
    entries, inputs = [], []
    for action in target.actions:
        if action.mnemonic not in _MNEMONICS or not action.argv:
            continue
        entries.append({"arguments": action.argv})
        inputs.append(action.inputs)
    if entries and CcInfo in target:
        # CppCompile's inputs leave out headers found by include scanning.
        inputs.append(target[CcInfo].compilation_context.headers)
    deps = _transitive(ctx)
    fragments = []
    if entries:
        fragment = ctx.actions.declare_file(target.label.name + ".compile_commands.json")
        ctx.actions.write(fragment, json.encode(entries))
        fragments.append(fragment)
    return [CompileCommandsInfo(
        fragments = depset(fragments, transitive = [d.fragments for d in deps]),
        inputs = depset(transitive = inputs + [d.inputs for d in deps]),
    )]

compile_commands_aspect = aspect(
    implementation = _compile_commands_aspect_impl,
    attr_aspects = _ATTRS,
    doc = "Collects the CppCompile and CudaCompile command lines below a target.",
)
