"""py_wheel: a reproducible wheel from py_library targets (and their extensions).

rules_python's own py_wheel needs its tools/ package, which the offline Debian
copy of rules_python lacks; this rule keeps its vocabulary (distribution,
version, python_tag, abi, platform, strip_path_prefixes, ...) and writes the
wheel with //toolchains/python/wheelmaker (sorted entries, fixed timestamps, RECORD).

The platform tag is checked against the native code at build time by
`//toolchains/python/wheelcheck tag` (the newest GLIBC_X.Y symbol version any shared
object imports, and its architecture): `platform = "auto"` takes the derived
tag, a hand-written tag that allows an older glibc than the code needs, names
another architecture, or says "any" for native code fails the build.
"""

load(":providers.bzl", "PyWheelInfo")

def _wheel_name(ctx):
    escaped = ctx.attr.distribution.replace("-", "_")
    return "{}-{}-{}-{}-{}.whl".format(escaped, ctx.attr.version, ctx.attr.python_tag, ctx.attr.abi, ctx.attr.platform)

def _platform_file(ctx, objects):
    """An action deriving (auto) or checking (hand-written) the platform tag."""
    out = ctx.actions.declare_file(ctx.label.name + ".platform")
    args = ctx.actions.args()
    args.add("tag")
    args.add("-expect", ctx.attr.platform)
    args.add("-out", out)
    args.add_all(objects)
    ctx.actions.run(
        executable = ctx.executable._wheelcheck,
        arguments = [args],
        inputs = objects,
        outputs = [out],
        mnemonic = "PyWheelPlatform",
        progress_message = ("Deriving" if ctx.attr.platform == "auto" else "Checking") +
                           " the platform tag of %{label}",
    )
    return out

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
    for extra, reqs in sorted(ctx.attr.extra_requires.items()):
        headers.append("Provides-Extra: " + extra)
        headers += ['Requires-Dist: {}; extra == "{}"'.format(r, extra) for r in reqs]
    metadata = ctx.actions.declare_file(ctx.label.name + ".metadata")
    ctx.actions.write(metadata, "".join([h + "\n" for h in headers]))

    auto = ctx.attr.platform == "auto"
    objects = [f for f in inputs if f.basename.endswith(".so") or ".so." in f.basename]
    platform_file = _platform_file(ctx, objects) if auto or objects else None
    name_file = ctx.actions.declare_file(ctx.label.name + ".name")
    if auto:
        # The file name is known only after the build: a directory holds the wheel.
        wheel = ctx.actions.declare_directory(ctx.label.name)
    else:
        wheel = ctx.actions.declare_file(_wheel_name(ctx))
    args = ctx.actions.args()
    args.add("-out", wheel.path)
    args.add("-name", ctx.attr.distribution)
    args.add("-version", ctx.attr.version)
    if auto:
        args.add("-tag", "-".join([ctx.attr.python_tag, ctx.attr.abi]))
        args.add("-platform-file", platform_file)
    else:
        args.add("-tag", "-".join([ctx.attr.python_tag, ctx.attr.abi, ctx.attr.platform]))
    args.add("-name-out", name_file)
    args.add("-metadata", metadata)
    args.add("-files", manifest)
    if ctx.file.description_file:
        args.add("-description", ctx.file.description_file)
        inputs.append(ctx.file.description_file)
    ctx.actions.run(
        executable = ctx.executable._wheelmaker,
        arguments = [args],
        # The platform file gates the wheel: a wrong hand-written tag fails first.
        inputs = inputs + [manifest, metadata] + ([platform_file] if platform_file else []),
        outputs = [wheel, name_file],
        mnemonic = "PyWheel",
        progress_message = "Writing wheel %{label}",
    )
    return [
        DefaultInfo(files = depset([wheel])),
        OutputGroupInfo(wheel_name = depset([name_file])),
        PyWheelInfo(
            abi = ctx.attr.abi,
            distribution = ctx.attr.distribution,
            name_file = name_file,
            platform = ctx.attr.platform,
            platform_file = platform_file,
            python_tag = ctx.attr.python_tag,
            version = ctx.attr.version,
            wheel = wheel,
        ),
    ]

py_wheel = rule(
    implementation = _py_wheel_impl,
    attrs = {
        "abi": attr.string(default = "none", doc = "ABI tag: `none`, `abi3`, `cp312`, ..."),
        "author": attr.string(doc = "`Author` metadata."),
        "classifiers": attr.string_list(doc = "`Classifier` metadata lines."),
        "deps": attr.label_list(doc = "py_library / py_extension targets whose files (and runfiles) go in."),
        "description_file": attr.label(allow_single_file = True, doc = "Long description (Markdown)."),
        "distribution": attr.string(mandatory = True, doc = "Distribution name (mandatory)."),
        "extra_requires": attr.string_list_dict(doc = "Optional extras: name -> requirements (`pip install dist[name]`)."),
        "homepage": attr.string(doc = "`Home-page` metadata."),
        "license": attr.string(doc = "`License` metadata."),
        "platform": attr.string(
            default = "any",
            doc = "Platform tag. `\"auto\"`: derived at build time from the native code " +
                  "(manylinux_X_Y_ARCH, X.Y the newest GLIBC_ symbol version imported; `any` " +
                  "without native code); the wheel is then the one file in the directory " +
                  "`<name>/`. A hand-written tag is checked the same way and fails the build " +
                  "when it allows an older glibc than the code needs or names another architecture.",
        ),
        "python_requires": attr.string(doc = "`Requires-Python` metadata."),
        "python_tag": attr.string(default = "py3", doc = "Python tag: `py3`, `cp311`, ..."),
        "requires": attr.string_list(doc = "`Requires-Dist` lines."),
        "strip_path_prefixes": attr.string_list(doc = "Only files under these package paths go in, with the prefix removed."),
        "summary": attr.string(doc = "`Summary` metadata."),
        "version": attr.string(mandatory = True, doc = "Distribution version (mandatory)."),
        "_wheelcheck": attr.label(default = Label("//toolchains/python/wheelcheck"), executable = True, cfg = "exec"),
        "_wheelmaker": attr.label(default = Label("//toolchains/python/wheelmaker"), executable = True, cfg = "exec"),
    },
    provides = [PyWheelInfo],
    doc = """A reproducible wheel (sorted entries, fixed timestamps, `RECORD`) of the files of
py_library / py_extension targets, written by cubridge's toolchains/python/wheelmaker. Returns
PyWheelInfo; the output group `wheel_name` holds a file with the wheel's file name.""",
)
