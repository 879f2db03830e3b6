"""go_library, go_binary and go_test: Go packages with cgo over CcInfo dependencies.

Each binary or test is one `go build` / `go test -c` action (see go_build.sh):
Go's own toolchain compiles the package, its imports and their cgo parts, while
Bazel supplies hermetic inputs: the SDK, the module cache, and the C/C++/CUDA
libraries from `cdeps` (cuda_library, cc_library), linked whole where they are
`alwayslink` so no kernel-registering object is dropped (rules_go issue #1486).

GoSourceInfo fields:
  srcs: depset of the .go files of a package and of its in-module dependencies.
  cc_info: CcInfo merged from the `cdeps` of the package and of its dependencies.
"""

GoSourceInfo = provider(
    doc = "Sources and C dependencies of a Go package, for go_binary / go_test.",
    fields = ["srcs", "cc_info"],
)

def _collect(ctx):
    srcs = depset(ctx.files.srcs, transitive = [d[GoSourceInfo].srcs for d in ctx.attr.deps])
    cc_info = cc_common.merge_cc_infos(
        cc_infos = [c[CcInfo] for c in ctx.attr.cdeps] + [d[GoSourceInfo].cc_info for d in ctx.attr.deps],
    )
    return srcs, cc_info

def _go_library_impl(ctx):
    srcs, cc_info = _collect(ctx)
    return [GoSourceInfo(srcs = srcs, cc_info = cc_info), DefaultInfo(files = depset(ctx.files.srcs))]

def _cgo_flags(cc_info):
    """CGO_CFLAGS and CGO_LDFLAGS for a CcInfo, paths relative to @PWD@ (the execroot)."""
    cc = cc_info.compilation_context
    cflags = ["-I@PWD@/" + d for d in cc.quote_includes.to_list() + cc.includes.to_list()]
    for d in cc.system_includes.to_list():
        cflags += ["-isystem@PWD@/" + d]
    cflags += ["-D" + d for d in cc.defines.to_list()]

    # cgo repeats CGO_LDFLAGS once per cgo package on the final link line, so
    # --whole-archive there would define symbols twice: archives go in as plain
    # archives, and the builder links `alwayslink` ones exactly once, whole, as a
    # .syso object of the package being built.
    ldflags, libs, whole = [], [], []
    for linker_input in cc_info.linking_context.linker_inputs.to_list():
        for lib in linker_input.libraries:
            archive = lib.pic_static_library or lib.static_library
            if archive:
                libs.append(archive)
                ldflags.append("@PWD@/" + archive.path)
                if lib.alwayslink:
                    whole.append("@PWD@/" + archive.path)
        ldflags += linker_input.user_link_flags

    # The C++ runtime statically, so binaries run where an older libstdc++ is installed.
    ldflags += ["-Wl,-Bstatic", "-lstdc++", "-Wl,-Bdynamic", "-lm"]
    return " ".join(cflags), " ".join(ldflags), " ".join(whole), depset(libs, transitive = [cc.headers])

def _rel_to(path, base):
    if not base:
        return path
    if path == base:
        return "."
    if not path.startswith(base + "/"):
        fail("package {} is not inside the Go module at {}".format(path, base))
    return path[len(base) + 1:]

def _build(ctx, mode, out):
    srcs, cc_info = _collect(ctx)
    cflags, ldflags, whole_archives, cc_inputs = _cgo_flags(cc_info)
    cc_toolchain = ctx.toolchains["@bazel_tools//tools/cpp:toolchain_type"].cc
    sdk_go = ctx.file._go
    go_mod = ctx.file.go_mod
    module_dir = go_mod.dirname if go_mod.dirname != "." else ""
    package_path = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package] if p])
    args = ctx.actions.args()
    args.add_all([mode, out.path, module_dir, _rel_to(package_path, module_dir)])
    race = getattr(ctx.attr, "race", False)
    if race:
        args.add("-race")
    args.add_all(ctx.attr.gc_flags)
    stdlib = ctx.attr._stdlib_race if race else ctx.attr._stdlib
    stdlib_dir = stdlib[DefaultInfo].files.to_list()[0]
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = depset(
            [go_mod, ctx.file.go_sum, stdlib_dir],
            transitive = [srcs, cc_inputs, ctx.attr._sdk[DefaultInfo].files, ctx.attr.modcache[DefaultInfo].files, cc_toolchain.all_files],
        ),
        outputs = [out],
        env = {
            "CC": cc_toolchain.compiler_executable,
            "CGO_CFLAGS": cflags,
            "CGO_LDFLAGS": ldflags,
            "CGO_WHOLE_ARCHIVES": whole_archives,
            "GO_CACHE_SEED": stdlib_dir.path,
            "GO_MODULE_CACHE": ctx.attr.modcache.label.workspace_root + "/modcache/cache/download",
            "GO_SDK_ROOT": sdk_go.dirname.rsplit("/bin", 1)[0],
            "PATH": "/usr/bin:/bin",
        },
        mnemonic = "GoTest" if mode == "test" else "GoBuild",
        progress_message = "Building Go %{label}",
    )

def _runfiles(ctx, exe):
    return ctx.runfiles(files = [exe] + ctx.files.data).merge_all(
        [d[DefaultInfo].default_runfiles for d in ctx.attr.data],
    )

def _go_binary_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name)
    _build(ctx, "build", out)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = _runfiles(ctx, out))]

def _rlocation(ctx, f):
    if f.short_path.startswith("../"):
        return f.short_path[3:]
    return ctx.workspace_name + "/" + f.short_path

def _go_test_impl(ctx):
    binary = ctx.actions.declare_file(ctx.label.name + ".test")
    _build(ctx, "test", binary)

    # Like `go test`: run in the package's directory (in the runfiles tree).
    launcher = ctx.actions.declare_file(ctx.label.name)
    package_dir = _rlocation(ctx, binary).rsplit("/", 1)[0]
    ctx.actions.write(launcher, """#!/usr/bin/env bash
set -euo pipefail
runfiles="${{RUNFILES_DIR:-${{TEST_SRCDIR:-$0.runfiles}}}}"
cd "${{runfiles}}/{dir}"
exec "${{runfiles}}/{bin}" "$@"
""".format(dir = package_dir, bin = _rlocation(ctx, binary)), is_executable = True)
    return [DefaultInfo(executable = launcher, files = depset([binary]), runfiles = _runfiles(ctx, binary))]

_COMMON_ATTRS = {
    "srcs": attr.label_list(allow_files = [".go", ".c", ".h", ".s"], doc = "Sources of this package."),
    "deps": attr.label_list(providers = [GoSourceInfo], doc = "go_library targets of the same module that it imports."),
    "cdeps": attr.label_list(providers = [CcInfo], doc = "cuda_library / cc_library targets its cgo code links."),
    "go_mod": attr.label(allow_single_file = True, mandatory = True, doc = "The module's go.mod."),
    "go_sum": attr.label(allow_single_file = True, mandatory = True, doc = "The module's go.sum."),
    "_sdk": attr.label(default = Label("@go_sdk//:files")),
    "_go": attr.label(default = Label("@go_sdk//:goroot/bin/go"), allow_single_file = True),
    "_builder": attr.label(default = Label("//toolchains/go/private:go_build.sh"), executable = True, cfg = "exec", allow_single_file = True),
}

_BUILD_ATTRS = dict(_COMMON_ATTRS, **{
    "_stdlib": attr.label(default = Label("//toolchains/go:stdlib")),
    "_stdlib_race": attr.label(default = Label("//toolchains/go:stdlib_race")),
    "data": attr.label_list(allow_files = True, doc = "Files needed at run time."),
    "gc_flags": attr.string_list(doc = "Extra flags for go build / go test -c."),
    "modcache": attr.label(mandatory = True, doc = "The module cache of go_mod (go_deps repository)."),
})

go_library = rule(
    implementation = _go_library_impl,
    attrs = _COMMON_ATTRS,
    provides = [GoSourceInfo],
    doc = "A Go package (sources + cgo C dependencies) for go_binary / go_test to build.",
)

go_binary = rule(
    implementation = _go_binary_impl,
    attrs = _BUILD_ATTRS,
    executable = True,
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "A Go command built with cgo against CcInfo deps.",
)

go_test = rule(
    implementation = _go_test_impl,
    attrs = dict(_BUILD_ATTRS, **{
        "race": attr.bool(doc = "Build with the race detector."),
    }),
    test = True,
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "A Go test binary (go test -c) run by `bazel test` in its package directory.",
)

def _go_stdlib_impl(ctx):
    cache = ctx.actions.declare_directory(ctx.label.name + "_cache")
    cc_toolchain = ctx.toolchains["@bazel_tools//tools/cpp:toolchain_type"].cc
    sdk_go = ctx.file._go
    args = ctx.actions.args()
    args.add_all(["stdlib", cache.path])
    if ctx.attr.race:
        args.add("-race")
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = depset(transitive = [ctx.attr._sdk[DefaultInfo].files, cc_toolchain.all_files]),
        outputs = [cache],
        env = {
            "CC": cc_toolchain.compiler_executable,
            "GO_SDK_ROOT": sdk_go.dirname.rsplit("/bin", 1)[0],
            "PATH": "/usr/bin:/bin",
        },
        mnemonic = "GoStdlib",
        progress_message = "Compiling the Go standard library%s" % (" (race)" if ctx.attr.race else ""),
    )
    return [DefaultInfo(files = depset([cache]))]

go_stdlib = rule(
    implementation = _go_stdlib_impl,
    attrs = {
        "race": attr.bool(),
        "_builder": _COMMON_ATTRS["_builder"],
        "_go": _COMMON_ATTRS["_go"],
        "_sdk": _COMMON_ATTRS["_sdk"],
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "The Go standard library compiled once into a build cache that go_binary/go_test start from.",
)
