"""py_wheel: a reproducible wheel from py_library targets (and their extensions).

rules_python's own py_wheel needs its tools/ package, which the offline Debian
copy of rules_python lacks; this rule keeps its vocabulary (distribution,
version, python_tag, abi, platform, strip_path_prefixes, ...) and writes the
wheel with //tools/wheelmaker (sorted entries, fixed timestamps, RECORD).
"""

def _wheel_name(ctx):
    escaped = ctx.attr.distribution.replace("-", "_")
    return "{}-{}-{}-{}-{}.whl".format(escaped, ctx.attr.version, ctx.attr.python_tag, ctx.attr.abi, ctx.attr.platform)

def _archive_path(f, prefixes):
    if f.short_path.startswith("../"):
        return None  # other repositories' files (interpreters, rules) stay out
    for prefix in prefixes:
        if f.short_path.startswith(prefix + "/"):
            return f.short_path[len(prefix) + 1:]
    return None if prefixes else f.short_path

def _py_wheel_impl(ctx):
    files = depset(transitive = [d[DefaultInfo].default_runfiles.files for d in ctx.attr.deps] +
                                [d[DefaultInfo].files for d in ctx.attr.deps])
    lines = []
    inputs = []
    for f in files.to_list():
        path = _archive_path(f, ctx.attr.strip_path_prefixes)
        if path:
            lines.append(path + "\t" + f.path)
            inputs.append(f)
    if not lines:
        fail("py_wheel: no files under {} in deps".format(ctx.attr.strip_path_prefixes))
    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest")
    ctx.actions.write(manifest, "\n".join(sorted(lines)) + "\n")

    headers = ["Summary: " + ctx.attr.summary] if ctx.attr.summary else []
    headers += ["Home-page: " + ctx.attr.homepage] if ctx.attr.homepage else []
    headers += ["Author: " + ctx.attr.author] if ctx.attr.author else []
    headers += ["License: " + ctx.attr.license] if ctx.attr.license else []
    headers += ["Requires-Python: " + ctx.attr.python_requires] if ctx.attr.python_requires else []
    headers += ["Classifier: " + c for c in ctx.attr.classifiers]
    headers += ["Requires-Dist: " + r for r in ctx.attr.requires]
    metadata = ctx.actions.declare_file(ctx.label.name + ".metadata")
    ctx.actions.write(metadata, "".join([h + "\n" for h in headers]))

    wheel = ctx.actions.declare_file(_wheel_name(ctx))
    args = ctx.actions.args()
    args.add("-out", wheel)
    args.add("-name", ctx.attr.distribution)
    args.add("-version", ctx.attr.version)
    args.add("-tag", "-".join([ctx.attr.python_tag, ctx.attr.abi, ctx.attr.platform]))
    args.add("-metadata", metadata)
    args.add("-files", manifest)
    if ctx.file.description_file:
        args.add("-description", ctx.file.description_file)
        inputs.append(ctx.file.description_file)
    ctx.actions.run(
        executable = ctx.executable._wheelmaker,
        arguments = [args],
        inputs = inputs + [manifest, metadata],
        outputs = [wheel],
        mnemonic = "PyWheel",
        progress_message = "Writing wheel %{output}",
    )
    return [DefaultInfo(files = depset([wheel]))]

py_wheel = rule(
    implementation = _py_wheel_impl,
    attrs = {
        "abi": attr.string(default = "none"),
        "author": attr.string(),
        "classifiers": attr.string_list(),
        "deps": attr.label_list(doc = "py_library / py_extension targets whose files go in."),
        "description_file": attr.label(allow_single_file = True),
        "distribution": attr.string(mandatory = True),
        "homepage": attr.string(),
        "license": attr.string(),
        "platform": attr.string(default = "any"),
        "python_requires": attr.string(),
        "python_tag": attr.string(default = "py3"),
        "requires": attr.string_list(),
        "strip_path_prefixes": attr.string_list(doc = "Only files under these are packed, with the prefix removed."),
        "summary": attr.string(),
        "version": attr.string(mandatory = True),
        "_wheelmaker": attr.label(default = Label("//tools/wheelmaker"), executable = True, cfg = "exec"),
    },
    doc = "Builds a wheel reproducibly from Python libraries and extensions.",
)
