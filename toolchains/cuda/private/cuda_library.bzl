"""cuda_library: rules_cuda's cuda_library, or the same sources as C++ for the CPU backend.

`name` is an alias of one of two targets, picked by rules_cuda's own switch:
  name_nvcc  rules_cuda's cuda_library (--@rules_cuda//cuda:enable=true, the
             default): nvcc, the archs of --@rules_cuda//cuda:archs, rdc, ...;
  name_cpu   cuda_cpu_library (--@rules_cuda//cuda:enable=false: no CUDA toolkit
             at all): the .cu files compiled as C++ by the cc toolchain against
             CUDA-less headers (toolchains/cuda/none), for code whose kernels also
             run on the CPU (CUBRIDGE_NO_CUDA is defined; put
             `#if !defined(CUBRIDGE_NO_CUDA)` around `<<<...>>>` launches).
Each is incompatible in the other mode, so `bazel build //...` builds one.
rules_cuda makes the other targets incompatible when disabled; this is the layer
that keeps a CPU build of the same library instead.

Both link what --@rules_cuda//cuda:runtime names: cubridge sets it to
//toolchains/cuda:runtime, its one link policy (static CUDA runtime, static C++
runtime, glibc shims; toolchains/cuda/BUILD.bazel).
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
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

def _is_header(f):
    return any([f.basename.endswith(ext) for ext in _HEADER_EXTENSIONS])

def _stem(ctx, src):
    """The source's path below the package, without extension: a/k.cu and b/k.cu stay apart."""
    package = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package] if p])
    path = src.path[len(src.root.path) + 1:] if src.root.path else src.path
    rel = path[len(package) + 1:] if package and path.startswith(package + "/") else src.basename
    return rel.rsplit(".", 1)[0]

def _include_dirs(ctx, dirs):
    out = []
    for d in dirs:
        path = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package, d] if p and p != "."])
        out.append(path or ".")
        out.append(ctx.bin_dir.path + "/" + path if path else ctx.bin_dir.path)
    return out

def _cuda_cpu_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    deps = [d[CcInfo] for d in ctx.attr.deps + [ctx.attr._runtime]]
    private_hdrs = [f for f in ctx.files.srcs if _is_header(f)]
    cxx_srcs = []
    quote_includes = {}
    for src in [f for f in ctx.files.srcs if not _is_header(f)]:
        # cc_common.compile wants a C++ extension; quote includes of the source's
        # own directory still resolve through -iquote.
        cc = ctx.actions.declare_file("_cxx/{}/{}.cc".format(ctx.label.name, _stem(ctx, src)))
        ctx.actions.symlink(output = cc, target_file = src)
        cxx_srcs.append(cc)
        quote_includes[src.dirname] = True
    compilation_context, outputs = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        srcs = cxx_srcs,
        public_hdrs = ctx.files.hdrs,
        includes = _include_dirs(ctx, ctx.attr.includes),
        quote_includes = quote_includes.keys(),
        defines = ctx.attr.defines,
        # Private headers as a context: cc_common.compile rejects .cuh in private_hdrs.
        compilation_contexts = [d.compilation_context for d in deps] + [
            cc_common.create_compilation_context(headers = depset(private_hdrs)),
        ],
        # cuda_runtime.h pre-included, as nvcc does.
        user_compile_flags = ["-std=c++17", "-include", "cuda_runtime.h", "-Wno-unknown-pragmas"] + ctx.attr.host_copts,
        disallow_nopic_outputs = True,
    )
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = outputs,
        linking_contexts = [d.linking_context for d in deps],
        user_link_flags = ctx.attr.linkopts,
        alwayslink = ctx.attr.alwayslink,
        disallow_dynamic_library = True,
    )
    library = linking_outputs.library_to_link
    return [
        DefaultInfo(files = depset([library.pic_static_library or library.static_library] if library else [])),
        CcInfo(
            compilation_context = cc_common.merge_compilation_contexts(
                compilation_contexts = [compilation_context] + [d.compilation_context for d in deps],
            ),
            linking_context = linking_context,
        ),
    ]

cuda_cpu_library = rule(
    implementation = _cuda_cpu_library_impl,
    attrs = {
        "alwayslink": attr.bool(default = False),
        "defines": attr.string_list(),
        "deps": attr.label_list(providers = [CcInfo]),
        "hdrs": attr.label_list(allow_files = _HEADER_EXTENSIONS),
        "host_copts": attr.string_list(),
        "includes": attr.string_list(),
        "linkopts": attr.string_list(),
        "srcs": attr.label_list(allow_files = [".cu"] + _HEADER_EXTENSIONS),
        "_runtime": attr.label(default = Label("@rules_cuda//cuda:runtime"), providers = [CcInfo]),
    },
    toolchains = use_cpp_toolchain(),
    fragments = ["cpp"],
    provides = [CcInfo],
    doc = "The .cu sources of a cuda_library compiled as C++ for the CPU backend (no CUDA toolkit).",
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
    cuda_cpu_library(
        name = name + "_cpu",
        host_copts = _HOST_OPT + host_copts,
        linkopts = linkopts,
        alwayslink = alwayslink,
        target_compatible_with = select({
            Label("@rules_cuda//cuda:is_enabled"): [Label("@platforms//:incompatible")],
            "//conditions:default": [],
        }) + target_compatible_with,
        **common
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
