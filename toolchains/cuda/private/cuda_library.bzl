"""cuda_library: rules_cuda's cuda_library, or the same sources as C++ for the CPU backend.

`name` is an alias of one of two targets, picked by rules_cuda's own switch:
  name_nvcc  rules_cuda's cuda_library (--@rules_cuda//cuda:enable=true, the
             default): nvcc, the archs of --@rules_cuda//cuda:archs, rdc, ...;
  name_cpu   (--@rules_cuda//cuda:enable=false: no CUDA toolkit at all) a
             cc_library of the .cu files as C++ (a .cc per .cu that includes
             it) against CUDA-less headers (toolchains/cuda/none), for code whose
             kernels also run on the CPU (CUBRIDGE_NO_CUDA is defined; put
             `#if !defined(CUBRIDGE_NO_CUDA)` around `<<<...>>>` launches).
Each is incompatible in the other mode, so `bazel build //...` builds one.
rules_cuda makes the other targets incompatible when disabled; this is the layer
that keeps a CPU build of the same library instead.

Both link what --@rules_cuda//cuda:runtime names: cubridge sets it to
//toolchains/cuda:runtime, its one link policy (static CUDA runtime, static C++
runtime, glibc shims; toolchains/cuda/BUILD.bazel).
"""

load("@rules_cuda//cuda:defs.bzl", "requires_cuda", rules_cuda_library = "cuda_library", rules_cuda_objects = "cuda_objects")

_HEADER_EXTENSIONS = [".h", ".hh", ".hpp", ".cuh", ".inc"]

# The host code is optimized in every compilation mode but dbg (Bazel's default,
# fastbuild, would leave it at -O0), as setuptools builds extensions; and has no
# debug information then, which would name nvcc's temporary files (tmpxft_<pid>_...)
# and so make every build's objects differ.
_HOST_OPT = select({
    Label("//toolchains/cc:dbg"): [],
    "//conditions:default": ["-O3", "-g0"],
})

# The CPU build: a .cc file per .cu that includes it, compiled by the cc
# toolchain with cuda_runtime.h pre-included, as nvcc does.
_CPU_COPTS = ["-std=c++17", "-include", "cuda_runtime.h", "-Wno-unknown-pragmas"]

def _is_header(name):
    return any([name.endswith(ext) for ext in _HEADER_EXTENSIONS])

def _cu_as_cc_impl(ctx):
    """One <stem>.cc per .cu source: `#include "<its path in its repository>"`.

    Including the .cu (instead of compiling a copy) keeps everything that points
    at it: its own directory for its quoted includes, its file name in errors,
    debug information and coverage.
    """
    outputs = []
    for src in ctx.files.srcs:
        path = src.path.removeprefix(src.owner.workspace_root + "/") if src.owner.workspace_root else src.path
        out = ctx.actions.declare_file("_cpu/{}/{}.cc".format(ctx.label.name, path.removesuffix(".cu")))
        ctx.actions.write(out, "// The CPU build of {} (cubridge's cuda_library).\n#include \"{}\"\n".format(path, path))
        outputs.append(out)
    return [DefaultInfo(files = depset(outputs))]

_cu_as_cc = rule(
    implementation = _cu_as_cc_impl,
    attrs = {"srcs": attr.label_list(allow_files = [".cu"])},
)

def _cuda_cpu_library_impl(ctx):
    lib = ctx.attr.library
    return [
        lib[CcInfo],
        lib[DefaultInfo],
        # bazel coverage: the .cu files are the sources; the gcov notes are the
        # cc_library's (its objects').
        coverage_common.instrumented_files_info(
            ctx,
            source_attributes = ["srcs"],
            dependency_attributes = ["library"],
            extensions = ["cu", "cuh", "h", "hh", "hpp", "inc"],
        ),
    ]

cuda_cpu_library = rule(
    implementation = _cuda_cpu_library_impl,
    attrs = {
        "library": attr.label(mandatory = True, providers = [CcInfo], doc = "The cc_library that compiles the sources."),
        "srcs": attr.label_list(allow_files = [".cu"] + _HEADER_EXTENSIONS, doc = "The sources, for coverage."),
    },
    provides = [CcInfo],
    doc = "The CPU build of a cuda_library: its cc_library, with the .cu files as coverage sources.",
)

def _cuda_target(
        rules_cuda_rule,
        name,
        srcs,
        hdrs,
        deps,
        includes,
        defines,
        copts,
        host_copts,
        ptxasopts,
        linkopts,
        rdc,
        archs,
        alwayslink,
        target_compatible_with,
        **kwargs):
    """name -> name_nvcc (rules_cuda_rule) or name_cpu (cuda_cpu_library), by rules_cuda's switch."""
    common = dict(
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        includes = includes,
        defines = defines,
        visibility = ["//visibility:private"],
        **{k: v for k, v in kwargs.items() if k in ["tags", "testonly"]}
    )

    # cuda_objects has neither rdc (its objects serve both) nor a link step, nor
    # the runtime that cuda_library adds by itself (its headers).
    if rules_cuda_rule == rules_cuda_library:
        nvcc_only = dict(host_linkopts = linkopts, alwayslink = alwayslink, rdc = rdc)
    else:
        nvcc_only = dict(deps = deps + [Label("@rules_cuda//cuda:runtime")])
    rules_cuda_rule(
        name = name + "_nvcc",
        copts = copts,
        host_copts = _HOST_OPT + host_copts,
        ptxasopts = ptxasopts,
        archs = archs,
        target_compatible_with = requires_cuda() + target_compatible_with,
        **dict(common, **nvcc_only)
    )
    cu_srcs = [s for s in srcs if not _is_header(s)]
    _cu_as_cc(
        name = name + "_cpu_srcs",
        srcs = cu_srcs,
        visibility = ["//visibility:private"],
        **{k: v for k, v in kwargs.items() if k in ["tags", "testonly"]}
    )
    cpu_compatible = select({
        Label("@rules_cuda//cuda:is_enabled"): [Label("@platforms//:incompatible")],
        "//conditions:default": [],
    }) + target_compatible_with
    native.cc_library(
        name = name + "_cpu_cc",
        srcs = [":" + name + "_cpu_srcs"],
        # The .cu files (included) and every header, whatever its extension.
        textual_hdrs = srcs + [h for h in hdrs if not h.endswith(".h")],
        hdrs = [h for h in hdrs if h.endswith(".h")],
        includes = includes,
        defines = defines,
        copts = _CPU_COPTS + _HOST_OPT + host_copts,
        linkopts = linkopts,
        alwayslink = alwayslink,
        deps = deps + [Label("@rules_cuda//cuda:runtime")],
        target_compatible_with = cpu_compatible,
        visibility = ["//visibility:private"],
        **{k: v for k, v in kwargs.items() if k in ["tags", "testonly"]}
    )
    cuda_cpu_library(
        name = name + "_cpu",
        srcs = srcs,
        library = ":" + name + "_cpu_cc",
        target_compatible_with = cpu_compatible,
        visibility = ["//visibility:private"],
        **{k: v for k, v in kwargs.items() if k in ["tags", "testonly"]}
    )
    native.alias(
        name = name,
        actual = select({
            Label("@rules_cuda//cuda:is_enabled"): name + "_nvcc",
            "//conditions:default": name + "_cpu",
        }),
        **kwargs
    )

def cuda_library(
        name,
        srcs = [],
        hdrs = [],
        deps = [],
        includes = [],
        defines = [],
        copts = [],
        host_copts = [],
        ptxasopts = [],
        linkopts = [],
        rdc = False,
        archs = None,
        alwayslink = True,
        target_compatible_with = [],
        **kwargs):
    """A CUDA library: rules_cuda's cuda_library, or a CPU build of it without a toolkit.

    Args:
      name: the library; an alias of name_nvcc or name_cpu (see the file's doc).
      srcs: .cu files and private headers.
      hdrs: public headers.
      deps: cc_library / cuda_library / cuda_objects targets.
      includes: include directories, relative to the package, for this target and its users.
      defines: macros for this target and its users.
      copts: extra nvcc options (rules_cuda's `copts`).
      host_copts: extra host compiler options (the C++ options of the CPU build).
      ptxasopts: extra ptxas options.
      linkopts: linker flags for users of the library (rules_cuda's `host_linkopts`).
      rdc: relocatable device code, device-linked here with that of its cuda_objects
        deps (rules_cuda's `rdc`; the CPU build has none).
      archs: GPU archs for this target in rules_cuda's notation (["compute_90:sm_90"]);
        default: --@rules_cuda//cuda:archs.
      alwayslink: link every object whole (default: kernels are never dropped).
      target_compatible_with: added to both targets' own.
      **kwargs: visibility, tags, testonly.
    """
    _cuda_target(rules_cuda_library, name, srcs, hdrs, deps, includes, defines, copts, host_copts, ptxasopts, linkopts, rdc, archs, alwayslink, target_compatible_with, **kwargs)

def cuda_objects(
        name,
        srcs = [],
        hdrs = [],
        deps = [],
        includes = [],
        defines = [],
        copts = [],
        host_copts = [],
        ptxasopts = [],
        archs = None,
        target_compatible_with = [],
        **kwargs):
    """CUDA objects that a cuda_library links (rules_cuda's cuda_objects), or their CPU build.

    For relocatable device code across targets: cuda_objects deps of one
    cuda_library(rdc = True), which device-links them all once.

    Args:
      name: the objects; an alias of name_nvcc or name_cpu.
      srcs: .cu files and private headers.
      hdrs: public headers.
      deps: cc_library / cuda_objects targets.
      includes: include directories, relative to the package.
      defines: macros for this target and its users.
      copts: extra nvcc options.
      host_copts: extra host compiler options.
      ptxasopts: extra ptxas options.
      archs: GPU archs for this target in rules_cuda's notation.
      target_compatible_with: added to both targets' own.
      **kwargs: visibility, tags, testonly.
    """
    _cuda_target(rules_cuda_objects, name, srcs, hdrs, deps, includes, defines, copts, host_copts, ptxasopts, [], False, archs, False, target_compatible_with, **kwargs)
