"""cuda_library: .cu sources compiled by nvcc into PIC objects, returned as CcInfo.

The result composes with cc_library, cc_test, cc_binary, cubridge's Go rules and
py_extension. Objects are always linked whole (alwayslink), so kernels and their
registration code are never dropped by the linker, and the static CUDA runtime
comes along as a dependency.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load(":toolkit.bzl", "CudaToolkitInfo")

_HEADER_EXTENSIONS = [".h", ".hh", ".hpp", ".cuh", ".inc"]

def gencode_flags(archs):
    """nvcc -gencode flags for archs in nvcc's vocabulary: sm_90, sm_90a (SASS), compute_90 (PTX)."""
    flags = []
    for arch in archs:
        if arch.startswith("sm_"):
            num = arch[len("sm_"):]
            flags.append("-gencode=arch=compute_{0},code=sm_{0}".format(num))
        elif arch.startswith("compute_"):
            flags.append("-gencode=arch={0},code={0}".format(arch))
        else:
            fail("cuda_library: unknown CUDA arch '{}': use sm_XX, sm_XXa or compute_XX".format(arch))
    return flags

def _is_header(f):
    return any([f.basename.endswith(ext) for ext in _HEADER_EXTENSIONS])

def _include_dirs(ctx, dirs):
    out = []
    for d in dirs:
        path = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package, d] if p and p != "."])
        out.append(path or ".")
        out.append(ctx.bin_dir.path + "/" + path if path else ctx.bin_dir.path)
    return out

def _cuda_library_impl(ctx):
    toolkit = ctx.attr._toolkit[CudaToolkitInfo]
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    archs = ctx.attr.archs or ctx.attr._archs_flag[BuildSettingInfo].value
    dep_cc = [d[CcInfo] for d in ctx.attr.deps]
    private_hdrs = [f for f in ctx.files.srcs if _is_header(f)]
    own_includes = _include_dirs(ctx, ctx.attr.includes)
    own_context = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        includes = depset(own_includes),
        defines = depset(ctx.attr.defines),
    )
    compilation_context = cc_common.merge_compilation_contexts(
        compilation_contexts = [own_context] + [c.compilation_context for c in dep_cc] +
                               ([toolkit.cudart.compilation_context] if toolkit.cudart else []),
    )
    inputs = depset(
        ctx.files.hdrs + private_hdrs,
        transitive = [compilation_context.headers, toolkit.compiler_files],
    )

    opt = ["-g", "-lineinfo"] if ctx.var["COMPILATION_MODE"] == "dbg" else ["-O3"]
    objects = []
    for src in ctx.files.srcs:
        if _is_header(src):
            continue
        obj = ctx.actions.declare_file("_objs/{}/{}.pic.o".format(ctx.label.name, src.basename.rsplit(".", 1)[0]))
        args = ctx.actions.args()
        args.add("-ccbin", toolkit.host_compiler)
        args.add_all(["-x", "cu", "-std=c++17", "-Xcompiler=-fPIC"])
        args.add_all(opt)
        args.add_all(gencode_flags(archs))
        args.add_all(compilation_context.defines, format_each = "-D%s")
        args.add_all(compilation_context.local_defines, format_each = "-D%s")
        args.add("-I.")
        args.add_all(compilation_context.quote_includes, format_each = "-I%s")
        args.add_all(compilation_context.includes, format_each = "-I%s")
        args.add_all(compilation_context.system_includes, format_each = "-isystem=%s")
        args.add_all(ctx.attr.host_copts, format_each = "-Xcompiler=%s")
        args.add_all(ctx.attr.ptxasopts, format_each = "-Xptxas=%s")
        args.add_all(ctx.attr.copts)
        args.add("-c", src)
        args.add("-o", obj)
        ctx.actions.run(
            executable = toolkit.nvcc,
            arguments = [args],
            inputs = depset([src], transitive = [inputs]),
            outputs = [obj],
            mnemonic = "CudaCompile",
            progress_message = "Compiling CUDA %{label}: " + src.short_path,
            use_default_shell_env = True,
        )
        objects.append(obj)

    linking_contexts = [c.linking_context for c in dep_cc] + [ctx.attr._portable_runtime[CcInfo].linking_context]
    if toolkit.cudart:
        linking_contexts.append(toolkit.cudart.linking_context)
    compilation_outputs = cc_common.create_compilation_outputs(
        objects = depset(objects),
        pic_objects = depset(objects),
    )
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = compilation_outputs,
        linking_contexts = linking_contexts,
        user_link_flags = ctx.attr.linkopts,
        alwayslink = True,
        disallow_dynamic_library = True,
    )
    library = linking_outputs.library_to_link
    files = [library.pic_static_library or library.static_library] if library else objects
    return [
        DefaultInfo(files = depset(files)),
        CcInfo(compilation_context = compilation_context, linking_context = linking_context),
        OutputGroupInfo(objects = depset(objects)),
    ]

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(
            allow_files = [".cu"] + _HEADER_EXTENSIONS,
            doc = "CUDA sources (.cu) and private headers.",
        ),
        "hdrs": attr.label_list(allow_files = _HEADER_EXTENSIONS, doc = "Public headers."),
        "deps": attr.label_list(providers = [CcInfo], doc = "cc_library / cuda_library dependencies."),
        "includes": attr.string_list(doc = "Include dirs, relative to the package, for this target and its users."),
        "defines": attr.string_list(doc = "Macros defined for this target and its users."),
        "copts": attr.string_list(doc = "Extra nvcc options."),
        "host_copts": attr.string_list(doc = "Extra options for the host compiler (-Xcompiler)."),
        "ptxasopts": attr.string_list(doc = "Extra ptxas options (-Xptxas)."),
        "linkopts": attr.string_list(doc = "Extra linker flags for users of this library."),
        "archs": attr.string_list(
            doc = "GPU archs (sm_90, sm_90a, compute_90); default: --@cubridge//toolchains/cuda:archs.",
        ),
        "_archs_flag": attr.label(default = Label("//toolchains/cuda:archs")),
        "_portable_runtime": attr.label(default = Label("//toolchains/cc:portable_runtime"), providers = [CcInfo]),
        "_toolkit": attr.label(default = Label("//toolchains/cuda:toolkit"), providers = [CudaToolkitInfo]),
    },
    toolchains = use_cpp_toolchain(),
    fragments = ["cpp"],
    provides = [CcInfo],
    doc = "Compiles CUDA sources with nvcc into a static, PIC, always-linked library (CcInfo).",
)
