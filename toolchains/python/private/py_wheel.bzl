"""py_wheel: rules_python's py_wheel, under the platform tag its native code needs.

rules_python's py_wheel writes the wheel (METADATA, RECORD, fixed time stamps)
but names it at analysis time, before any extension is built, so it takes the
platform tag as written. This layer builds it with the generic tag of the
architecture (linux_x86_64), then `wheelcheck retag` (toolchains/python/wheelcheck)
rewrites it under the tag the shared objects need: manylinux_X_Y_ARCH, X.Y the
newest GLIBC_ symbol version any of them imports, and "any" without native code.
A written `platform` is checked the same way instead: one that allows an older
glibc than the code needs, names another architecture, or says "any" for native
code fails the build. Since the file name is known only after the build, the
wheel is the one file in the directory `<name>/` (PyWheelInfo.name_file holds
its name), as rules_python's own `.dist` target does for stamped names.

The upstream change that would remove the layer: a py_wheel platform tag
derived at execution time (a `platform` read from a file).
"""

load("@rules_python//python:packaging.bzl", rules_python_py_package = "py_package", rules_python_py_wheel = "py_wheel")
load(":providers.bzl", "PyWheelInfo")

def _wheel_platform_impl(ctx):
    untagged = ctx.file.wheel
    out_dir = ctx.actions.declare_directory(ctx.label.name)
    name_file = ctx.actions.declare_file(ctx.label.name + ".name")
    platform_file = ctx.actions.declare_file(ctx.label.name + ".platform")
    args = ctx.actions.args()
    args.add("retag")
    args.add("-platform", ctx.attr.platform)
    args.add("-out-dir", out_dir.path)
    args.add("-name-out", name_file)
    args.add("-platform-out", platform_file)
    args.add(untagged)
    ctx.actions.run(
        executable = ctx.executable._wheelcheck,
        arguments = [args],
        inputs = [untagged],
        outputs = [out_dir, name_file, platform_file],
        mnemonic = "PyWheelPlatform",
        progress_message = ("Deriving" if ctx.attr.platform == "auto" else "Checking") +
                           " the platform tag of %{label}",
    )
    return [
        DefaultInfo(files = depset([out_dir]), runfiles = ctx.runfiles(files = [out_dir])),
        OutputGroupInfo(wheel_name = depset([name_file])),
        PyWheelInfo(
            abi = ctx.attr.abi,
            distribution = ctx.attr.distribution,
            name_file = name_file,
            platform = ctx.attr.platform,
            platform_file = platform_file,
            python_tag = ctx.attr.python_tag,
            version = ctx.attr.version,
            wheel = out_dir,
        ),
    ]

_wheel_platform = rule(
    implementation = _wheel_platform_impl,
    attrs = {
        "abi": attr.string(),
        "distribution": attr.string(),
        "platform": attr.string(mandatory = True),
        "python_tag": attr.string(),
        "version": attr.string(),
        "wheel": attr.label(allow_single_file = [".whl"], mandatory = True),
        "_wheelcheck": attr.label(default = Label("//toolchains/python/wheelcheck"), executable = True, cfg = "exec"),
    },
    provides = [PyWheelInfo],
)

# rules_python's placeholder tag per CPU, refined by retag.
_GENERIC_PLATFORM = select({
    Label("@platforms//cpu:aarch64"): "linux_aarch64",
    "//conditions:default": "linux_x86_64",
})

def py_wheel(
        name,
        distribution,
        version,
        deps = [],
        platform = "auto",
        python_tag = "py3",
        abi = "none",
        strip_path_prefixes = [],
        packages = [],
        **kwargs):
    """A wheel of py_library / py_extension targets, tagged for its native code.

    Args:
      name: the wheel's directory `<name>/` (holding the one .whl).
      distribution: distribution name (selects allowed).
      version: distribution version.
      deps: py_library targets; their files, data (extensions) and runfiles go in.
      platform: "auto" (default: derived from the native code) or a tag to check.
      python_tag: "py3", "cp311", ...
      abi: "none", "abi3", "cp312", ...
      strip_path_prefixes: package paths removed from the files' paths in the wheel.
      packages: only files of these Python packages (dotted) go in (rules_python's py_package).
      **kwargs: rules_python py_wheel metadata: summary, description_file, requires,
        extra_requires, python_requires, classifiers, author, homepage, license, ...;
        and visibility, tags, testonly.
    """
    common = {k: v for k, v in kwargs.items() if k in ["tags", "testonly"]}
    rules_python_py_package(
        name = name + "_files",
        deps = deps,
        packages = packages,
        visibility = ["//visibility:private"],
        **common
    )
    rules_python_py_wheel(
        name = name + "_untagged",
        distribution = distribution,
        version = version,
        python_tag = python_tag,
        abi = abi,
        platform = _GENERIC_PLATFORM,
        strip_path_prefixes = strip_path_prefixes,
        deps = [":" + name + "_files"],
        visibility = ["//visibility:private"],
        **{k: v for k, v in kwargs.items() if k != "visibility"}
    )
    _wheel_platform(
        name = name,
        wheel = ":" + name + "_untagged",
        platform = platform,
        distribution = distribution,
        version = version,
        python_tag = python_tag,
        abi = abi,
        **{k: v for k, v in kwargs.items() if k in ["tags", "testonly", "visibility"]}
    )
