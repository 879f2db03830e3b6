"""go_library, go_binary and go_test: one cached action per package, as rules_go.

  go_library  compiles its package (cgo part over `cdeps` with `go tool cgo` and
              the C toolchain, then `go tool compile`) into export data and an
              archive, handed on through GoArchiveInfo (providers.bzl).
  go_binary   compiles package main and links it with `go tool link`.
  go_test     compiles the package with its internal tests (`embed` a
              go_library, or list its sources in `srcs`), the external `_test`
              package, a generated test main, and links them.

Each compile reads only the export data of its direct imports, so an edit that
keeps a package's API recompiles that package and relinks the binaries above.
The standard library is compiled once per configuration (go_stdlib); `race`
and `-asan` switch the configuration of the Go packages (never of `cdeps`).
"""

load(":context.bzl", "CC_TOOLCHAIN", "CONTEXT_ATTRS", "GO_TOOLCHAIN", "RACE_FLAG", "SANITIZE_FLAG", "common_args", "go_context")
load(":providers.bzl", "GoArchiveInfo", "GoModuleInfo")

# --- configuration: race / asan for the Go side, the C side left alone ---------

def _binary_transition_impl(settings, attr):
    race = settings[RACE_FLAG] or getattr(attr, "race", False) or "-race" in attr.gc_flags
    sanitize = "asan" if "-asan" in attr.gc_flags else settings[SANITIZE_FLAG]
    return {RACE_FLAG: race, SANITIZE_FLAG: sanitize}

_binary_transition = transition(
    implementation = _binary_transition_impl,
    inputs = [RACE_FLAG, SANITIZE_FLAG],
    outputs = [RACE_FLAG, SANITIZE_FLAG],
)

def _cdeps_transition_impl(_settings, _attr):
    # The C/C++/CUDA libraries do not depend on the Go race detector: build them
    # once, in the configuration of everything else.
    return {RACE_FLAG: False}

_cdeps_transition = transition(
    implementation = _cdeps_transition_impl,
    inputs = [],
    outputs = [RACE_FLAG],
)

# --- helpers -------------------------------------------------------------------

def _module_info(ctx):
    d = ctx.attr.go_deps
    return d[GoModuleInfo] if d else None

def _default_importpath(ctx):
    if ctx.attr.importpath:
        return ctx.attr.importpath
    module = _module_info(ctx)
    if not module:
        fail("{}: set `importpath` (no go_deps module to derive it from)".format(ctx.label))
    base = ctx.attr.go_mod.label.package if ctx.attr.go_mod else ""
    pkg = ctx.label.package
    if base and pkg != base and not pkg.startswith(base + "/"):
        fail("{}: package {} is not inside the Go module at {}".format(ctx.label, pkg, base))
    rel = pkg[len(base):].lstrip("/")
    return module.module_path + ("/" + rel if rel else "")

def _cflags(cc_infos):
    cc = cc_common.merge_cc_infos(cc_infos = cc_infos).compilation_context
    flags = ["-I" + d for d in cc.quote_includes.to_list() + cc.includes.to_list()]
    flags += ["-isystem" + d for d in cc.system_includes.to_list()]
    flags += ["-D" + d for d in cc.defines.to_list()]
    return flags, cc.headers

def _external(ctx):
    module = _module_info(ctx)
    return module.archives if module else []

def _compile(ctx, go, name, importpath, srcs, deps, cdeps, mode, extra_arcs = [], lib = None):
    """One package: returns (export File, archive File)."""
    export = ctx.actions.declare_file("_go/{}/{}.x".format(ctx.label.name, name))
    archive = ctx.actions.declare_file("_go/{}/{}.a".format(ctx.label.name, name))
    cflags, headers = _cflags(cdeps)
    args = ctx.actions.args()
    args.add("compile")
    common_args(go, args)
    args.add_all(["-importpath", importpath, "-mode", mode, "-o", export, "-linkobj", archive])
    arcs = {}
    for d in deps + _external(ctx):
        arcs.setdefault(d.importpath, d.export)
    for ip, f in extra_arcs:
        arcs[ip] = f
    args.add_all(["{}={}".format(ip, f.path) for ip, f in arcs.items()], before_each = "-arc")
    args.add_all(srcs, before_each = "-src")
    lib_files = []
    if lib:
        args.add("-lib", "{},{}".format(lib.export.path, lib.archive.path))
        lib_files = [lib.export, lib.archive]
    args.add_all(cflags, before_each = "-cflag")
    args.add_all(ctx.attr.gc_flags if hasattr(ctx.attr, "gc_flags") else [], before_each = "-gcflag", map_each = _gc_flag)
    ctx.actions.run(
        executable = go.toolchain.builder,
        arguments = [args],
        inputs = depset(srcs + arcs.values() + lib_files, transitive = [go.inputs, headers]),
        outputs = [export, archive],
        env = go.env,
        mnemonic = "GoCompile",
        progress_message = "Compiling Go package %s (%s)" % (importpath, mode),
    )
    return export, archive

def _gc_flag(flag):
    # -race and -asan are configurations (see _binary_transition), not compiler flags.
    return None if flag in ("-race", "-asan") else flag

def _archive_info(importpath, export, archive, deps, cdeps, srcs):
    return GoArchiveInfo(
        importpath = importpath,
        export = export,
        archive = archive,
        transitive = depset(
            [struct(importpath = importpath, archive = archive)],
            transitive = [d.transitive for d in deps],
        ),
        cc_info = cc_common.merge_cc_infos(cc_infos = cdeps + [d.cc_info for d in deps]),
        srcs = srcs,
        deps = deps,
        cdeps = cdeps,
    )

def _link(ctx, go, out, main_archive, archives, cc_info):
    """Links main_archive with every (importpath, archive) of archives."""
    args = ctx.actions.args()
    args.add("link")
    common_args(go, args)
    args.add_all(["-o", out, "-main", main_archive])
    args.add_all(["{}={}".format(ip, f.path) for ip, f in archives.items()], before_each = "-arc")
    libs, extld = [], []
    for linker_input in cc_info.linking_context.linker_inputs.to_list():
        for lib in linker_input.libraries:
            f = lib.pic_static_library or lib.static_library or lib.dynamic_library
            if not f:
                continue
            libs.append(f)
            if lib.alwayslink and (lib.pic_static_library or lib.static_library):
                # Each alwayslink archive once, whole: no kernel-registering object dropped.
                extld += ["-Wl,--whole-archive", f.path, "-Wl,--no-whole-archive"]
            else:
                extld.append(f.path)
        extld += linker_input.user_link_flags
    if libs:
        # The C++ runtime statically, so binaries run where an older libstdc++ is installed.
        extld += ["-Wl,-Bstatic", "-lstdc++", "-Wl,-Bdynamic", "-lm"]
        args.add("-external")
    args.add_all(extld, before_each = "-extldflag")
    ctx.actions.run(
        executable = go.toolchain.builder,
        arguments = [args],
        inputs = depset([main_archive] + archives.values() + libs, transitive = [go.inputs]),
        outputs = [out],
        env = go.env,
        mnemonic = "GoLink",
        progress_message = "Linking Go %{label}",
    )

def _link_archives(infos, skip = None):
    """importpath -> archive for the link, from GoArchiveInfos (skip: an import path left out)."""
    archives = {}
    for info in infos:
        for a in info.transitive.to_list():
            if a.importpath != skip:
                archives.setdefault(a.importpath, a.archive)
    return archives

def _deps(ctx):
    return [d[GoArchiveInfo] for d in ctx.attr.deps]

def _cdeps(ctx):
    return [c[CcInfo] for c in ctx.attr.cdeps]

def _embedded(ctx):
    """srcs, deps, cdeps of the target merged with those of its `embed`."""
    srcs, deps, cdeps = list(ctx.files.srcs), _deps(ctx), _cdeps(ctx)
    for e in ctx.attr.embed:
        info = e[GoArchiveInfo]
        srcs, deps, cdeps = info.srcs + srcs, info.deps + deps, info.cdeps + cdeps
    return srcs, deps, cdeps

def _runfiles(ctx, exe):
    return ctx.runfiles(files = [exe] + ctx.files.data).merge_all(
        [d[DefaultInfo].default_runfiles for d in ctx.attr.data],
    )

# --- rules ---------------------------------------------------------------------

def _go_library_impl(ctx):
    go = go_context(ctx)
    importpath = _default_importpath(ctx)
    srcs, deps, cdeps = _embedded(ctx)
    export, archive = _compile(ctx, go, ctx.label.name, importpath, srcs, deps, cdeps, "lib")
    return [
        _archive_info(importpath, export, archive, deps, cdeps, srcs),
        DefaultInfo(files = depset([archive])),
    ]

def _go_binary_impl(ctx):
    go = go_context(ctx)
    srcs, deps, cdeps = _embedded(ctx)
    importpath = _default_importpath(ctx)
    _, archive = _compile(ctx, go, ctx.label.name, importpath, srcs, deps, cdeps, "lib")
    out = ctx.actions.declare_file(ctx.label.name)
    info = _archive_info(importpath, None, archive, deps + _external(ctx), cdeps, srcs)
    _link(ctx, go, out, archive, _link_archives(info.deps), info.cc_info)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = _runfiles(ctx, out))]

def _rlocation(ctx, f):
    if f.short_path.startswith("../"):
        return f.short_path[3:]
    return ctx.workspace_name + "/" + f.short_path

def _go_test_impl(ctx):
    go = go_context(ctx)
    srcs, deps, cdeps = _embedded(ctx)
    importpath = _default_importpath(ctx)
    if ctx.attr.embed and not ctx.attr.importpath:
        importpath = ctx.attr.embed[0][GoArchiveInfo].importpath

    # The package with its internal tests, the external tests, the test main.
    # Without embed, a go_library of the same import path in deps is the package
    # under test when the target has only external tests.
    lib = [d for d in deps if d.importpath == importpath]
    x, a = _compile(ctx, go, "internal", importpath, srcs, deps, cdeps, "test", lib = lib[0] if lib else None)
    xx, xa = _compile(ctx, go, "external", importpath + "_test", srcs, deps, [], "xtest", extra_arcs = [(importpath, x)])
    _, ma = _compile_testmain(ctx, go, importpath, srcs, [(importpath, x), (importpath + "_test", xx)])
    archives = _link_archives(deps + _external(ctx), skip = importpath)
    archives[importpath] = a
    archives[importpath + "_test"] = xa
    binary = ctx.actions.declare_file(ctx.label.name + ".test")
    cc_info = cc_common.merge_cc_infos(cc_infos = cdeps + [d.cc_info for d in deps])
    _link(ctx, go, binary, ma, archives, cc_info)

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

def _compile_testmain(ctx, go, importpath, srcs, arcs):
    export = ctx.actions.declare_file("_go/{}/testmain.x".format(ctx.label.name))
    archive = ctx.actions.declare_file("_go/{}/testmain.a".format(ctx.label.name))
    args = ctx.actions.args()
    args.add("testmain")
    common_args(go, args)
    args.add_all(["-importpath", importpath, "-o", export, "-linkobj", archive])
    args.add_all(["{}={}".format(ip, f.path) for ip, f in arcs], before_each = "-arc")
    args.add_all(srcs, before_each = "-src")
    ctx.actions.run(
        executable = go.toolchain.builder,
        arguments = [args],
        inputs = depset(srcs + [f for _, f in arcs], transitive = [go.inputs]),
        outputs = [export, archive],
        env = go.env,
        mnemonic = "GoTestMain",
        progress_message = "Generating the test main of %{label}",
    )
    return export, archive

_COMMON_ATTRS = dict(CONTEXT_ATTRS, **{
    "cdeps": attr.label_list(providers = [CcInfo], cfg = _cdeps_transition, doc = "cuda_library / cc_library targets its cgo code uses; linked once into each binary."),
    "deps": attr.label_list(providers = [GoArchiveInfo], doc = "go_library targets it imports."),
    "embed": attr.label_list(providers = [GoArchiveInfo], doc = "go_library targets whose sources, deps and cdeps join this package (go_test: internal tests)."),
    "gc_flags": attr.string_list(doc = "Extra flags for `go tool compile`; `-race` / `-asan` select those configurations."),
    "go_deps": attr.label(providers = [GoModuleInfo], doc = "The module dependencies (@go_deps//:all): every package is importable; also gives the module path."),
    "go_mod": attr.label(allow_single_file = True, doc = "The module's go.mod (its directory roots default import paths)."),
    "go_sum": attr.label(allow_single_file = True, doc = "The module's go.sum (kept for compatibility; go_deps verifies modules)."),
    "importpath": attr.string(doc = "Import path; default: the module path + the package's directory below go.mod."),
    "modcache": attr.label(doc = "Ignored; kept so that older BUILD files still load."),
    "srcs": attr.label_list(allow_files = [".go", ".c", ".h"], doc = "Sources of this package (.go, and .c/.h of its cgo part)."),
    "_stdlib": attr.label(default = Label("//toolchains/go:stdlib")),
    "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
})

_RUN_ATTRS = dict(_COMMON_ATTRS, **{
    "data": attr.label_list(allow_files = True, doc = "Files needed at run time."),
    "race": attr.bool(doc = "Build with the race detector (the Go packages, standard library included)."),
})

go_library = rule(
    implementation = _go_library_impl,
    attrs = _COMMON_ATTRS,
    provides = [GoArchiveInfo],
    toolchains = [GO_TOOLCHAIN, CC_TOOLCHAIN],
    doc = "A Go package compiled in one action into export data and an archive.",
)

def _go_executable_rule(implementation, doc, **kwargs):
    """go_binary and go_test: package main linked into a program, in the binary configuration."""
    return rule(
        implementation = implementation,
        attrs = _RUN_ATTRS,
        cfg = _binary_transition,
        toolchains = [GO_TOOLCHAIN, CC_TOOLCHAIN],
        doc = doc,
        **kwargs
    )

go_binary = _go_executable_rule(
    _go_binary_impl,
    executable = True,
    doc = "A Go command: package main compiled, then linked in one action.",
)

go_test = _go_executable_rule(
    _go_test_impl,
    test = True,
    doc = "A Go test binary run by `bazel test` in its package directory.",
)

def _go_module_impl(ctx):
    return [GoModuleInfo(module_path = ctx.attr.module_path, archives = [d[GoArchiveInfo] for d in ctx.attr.deps])]

go_module = rule(
    implementation = _go_module_impl,
    attrs = {
        "deps": attr.label_list(providers = [GoArchiveInfo]),
        "module_path": attr.string(mandatory = True),
    },
    provides = [GoModuleInfo],
    doc = "The compiled packages of a go.mod's dependencies, and its module path (generated in @go_deps).",
)
