"""cuda_library: .cu sources compiled by nvcc into PIC objects, returned as CcInfo.

The result composes with cc_library, cc_test, cc_binary, cubridge's Go rules and
py_extension. Objects are always linked whole (alwayslink), so kernels and their
registration code are never dropped by the linker, and the static CUDA runtime
comes along as a dependency.

With --@cubridge//toolchains/cuda:mode=none there is no nvcc: the .cu files are
compiled as C++ by the cc toolchain against cubridge's CUDA-less headers
(toolchains/cuda/none), for the CPU backend only.

Output groups besides the default:
  objects: the PIC objects.
  ptx:     one .ptx per source and virtual arch (compute_XX, also for each sm_XX).
  cubin:   one .cubin per source and real arch (sm_XX, sm_XXa).
  fatbin:  one .fatbin per source with every arch of the target.
The ptx, cubin and fatbin files come from extra nvcc actions that only run when
the group is requested (--output_groups=ptx,cubin,fatbin); empty in mode=none.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load(":archs.bzl", "CudaArchsInfo", "parse_archs")
load(":rdc.bzl", "CudaRdcInfo")
load(":toolkit.bzl", "CUDA_TOOLCHAIN_TYPE", "find_cuda_toolkit")

_HEADER_EXTENSIONS = [".h", ".hh", ".hpp", ".cuh", ".inc"]

def _is_header(f):
    return any([f.basename.endswith(ext) for ext in _HEADER_EXTENSIONS])

def _include_dirs(ctx, dirs):
    out = []
    for d in dirs:
        path = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package, d] if p and p != "."])
        out.append(path or ".")
        out.append(ctx.bin_dir.path + "/" + path if path else ctx.bin_dir.path)
    return out

def _stem(ctx, src):
    """The source's path below the package, without extension: a/k.cu and b/k.cu stay apart."""
    package = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package] if p])
    path = src.path[len(src.root.path) + 1:] if src.root.path else src.path
    rel = path[len(package) + 1:] if package and path.startswith(package + "/") else src.basename
    return rel.rsplit(".", 1)[0]

def _optimized(ctx):
    """Whether to optimize: in every compilation mode but dbg.

    Bazel's default mode, fastbuild, would compile the host code at -O0.
    """
    return ctx.var["COMPILATION_MODE"] != "dbg"

def _nvcc_args(ctx, toolkit, compilation_context, out):
    """nvcc's options common to objects, PTX, cubins and fatbins (no -gencode, no mode)."""
    opt = ["-O3"] if _optimized(ctx) else ["-g", "-lineinfo"]
    args = ctx.actions.args()
    args.add("-ccbin", toolkit.host_compiler)
    args.add_all(["-x", "cu", "-std=c++17", "-Xcompiler=-fPIC"])

    # Reproducible output: a seed per output instead of a random one, and no
    # absolute paths (every path here is execroot-relative).
    args.add("-Xcompiler=-frandom-seed=" + out.path)
    args.add_all(opt)
    args.add_all(compilation_context.defines, format_each = "-D%s")
    args.add_all(compilation_context.local_defines, format_each = "-D%s")
    args.add("-I.")
    args.add_all(compilation_context.quote_includes, format_each = "-I%s")
    args.add_all(compilation_context.includes, format_each = "-I%s")
    args.add_all(compilation_context.system_includes, format_each = "-isystem=%s")
    args.add_all(ctx.attr.host_copts, format_each = "-Xcompiler=%s")
    args.add_all(ctx.attr.ptxasopts, format_each = "-Xptxas=%s")
    args.add_all(ctx.attr.copts)
    return args

def _nvcc(ctx, toolkit, compilation_context, inputs, src, out, mode_flags, mnemonic, what):
    args = _nvcc_args(ctx, toolkit, compilation_context, out)
    args.add_all(mode_flags)
    args.add(src)
    args.add("-o", out)
    executable, wrapper_args, tools = toolkit.nvcc, [], []
    if "-c" in mode_flags:  # objects go through nvcc_object.sh (reproducibility)
        wrapper = ctx.actions.args()
        wrapper.add_all([find_cpp_toolchain(ctx).objcopy_executable, out, toolkit.nvcc])
        executable, wrapper_args, tools = ctx.executable._nvcc_object, [wrapper], [toolkit.nvcc]
    ctx.actions.run(
        executable = executable,
        arguments = wrapper_args + [args],
        tools = tools,
        inputs = depset([src], transitive = [inputs]),
        outputs = [out],
        mnemonic = mnemonic,
        progress_message = "Compiling CUDA %{label} (" + what + "): " + src.short_path,
        use_default_shell_env = True,
    )

def _compile_nvcc(ctx, toolkit, compilation_context, srcs, private_hdrs, archs):
    """Objects (default), PTX, cubins and fatbins (output groups) from nvcc."""
    inputs = depset(
        ctx.files.hdrs + private_hdrs,
        transitive = [compilation_context.headers, toolkit.compiler_files],
    )
    gencode = archs.gencode
    prefix = "_objs/{}/".format(ctx.label.name)
    gpu_prefix = "_gpu/{}/".format(ctx.label.name)
    objects, ptx, cubin, fatbin = [], [], [], []
    for src in srcs:
        # An rdc object's module id hashes the source's absolute path (the
        # sandbox's, so every build would differ): name it by its execroot path.
        rdc = ["-rdc=true", "-Xcudafe", "--orig_src_path_name=" + src.path] if ctx.attr.rdc else []
        obj = ctx.actions.declare_file(prefix + _stem(ctx, src) + ".pic.o")
        _nvcc(ctx, toolkit, compilation_context, inputs, src, obj, gencode + rdc + ["-c"], "CudaCompile", "object")
        objects.append(obj)
        for arch in archs.virtual:
            out = ctx.actions.declare_file("{}{}.{}.ptx".format(gpu_prefix, _stem(ctx, src), arch))
            _nvcc(ctx, toolkit, compilation_context, inputs, src, out, ["--gpu-architecture=" + arch, "-ptx"] + rdc, "CudaPtx", arch + " PTX")
            ptx.append(out)
        for arch, virtual in archs.real:
            out = ctx.actions.declare_file("{}{}.{}.cubin".format(gpu_prefix, _stem(ctx, src), arch))
            flags = ["--gpu-architecture=" + virtual, "--gpu-code=" + arch, "-cubin"] + rdc
            _nvcc(ctx, toolkit, compilation_context, inputs, src, out, flags, "CudaCubin", arch + " cubin")
            cubin.append(out)
        out = ctx.actions.declare_file("{}{}.fatbin".format(gpu_prefix, _stem(ctx, src)))
        _nvcc(ctx, toolkit, compilation_context, inputs, src, out, gencode + rdc + ["-fatbin"], "CudaFatbin", "fatbin")
        fatbin.append(out)
    outputs = cc_common.create_compilation_outputs(objects = depset(objects), pic_objects = depset(objects))
    return outputs, objects, {"cubin": cubin, "fatbin": fatbin, "ptx": ptx}

def _compile_as_cxx(ctx, cc_toolchain, feature_configuration, compilation_context, srcs, private_hdrs):
    """mode=none: the .cu files as C++ (with cuda_runtime.h pre-included, as nvcc does)."""
    cxx_srcs = []
    quote_includes = {}
    for src in srcs:
        # cc_common.compile wants a C++ extension; quote includes of the source's
        # own directory still resolve through -iquote.
        cc = ctx.actions.declare_file("_cxx/{}/{}.cc".format(ctx.label.name, _stem(ctx, src)))
        ctx.actions.symlink(output = cc, target_file = src)
        cxx_srcs.append(cc)
        quote_includes[src.dirname] = True
    _, outputs = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        srcs = cxx_srcs,
        public_hdrs = ctx.files.hdrs,
        quote_includes = quote_includes.keys(),
        # Private headers as a context: cc_common.compile rejects .cuh in private_hdrs.
        compilation_contexts = [
            compilation_context,
            cc_common.create_compilation_context(headers = depset(private_hdrs)),
        ],
        user_compile_flags = ["-std=c++17", "-include", "cuda_runtime.h", "-Wno-unknown-pragmas"] +
                             (["-O3"] if _optimized(ctx) else []) + ctx.attr.host_copts,
        disallow_nopic_outputs = True,
    )
    return outputs, outputs.pic_objects, {"cubin": [], "fatbin": [], "ptx": []}

def _cuda_library_impl(ctx):
    toolkit = find_cuda_toolkit(ctx)
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    archs = parse_archs(ctx.attr.archs) if ctx.attr.archs else ctx.attr._archs_flag[CudaArchsInfo]
    dep_cc = [d[CcInfo] for d in ctx.attr.deps]
    private_hdrs = [f for f in ctx.files.srcs if _is_header(f)]
    srcs = [f for f in ctx.files.srcs if not _is_header(f)]
    own_context = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        includes = depset(_include_dirs(ctx, ctx.attr.includes)),
        defines = depset(ctx.attr.defines),
    )
    compilation_context = cc_common.merge_compilation_contexts(
        compilation_contexts = [own_context] + [c.compilation_context for c in dep_cc] +
                               ([toolkit.cudart.compilation_context] if toolkit.cudart else []),
    )
    if toolkit.mode == "none":
        compilation_outputs, objects, gpu_files = _compile_as_cxx(
            ctx,
            cc_toolchain,
            feature_configuration,
            compilation_context,
            srcs,
            private_hdrs,
        )
    else:
        compilation_outputs, objects, gpu_files = _compile_nvcc(ctx, toolkit, compilation_context, srcs, private_hdrs, archs)

    linking_contexts = [c.linking_context for c in dep_cc] + [ctx.attr._portable_runtime[CcInfo].linking_context]
    if toolkit.cudart:
        linking_contexts.append(toolkit.cudart.linking_context)
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
    rdc_deps = [d[CudaRdcInfo] for d in ctx.attr.deps if CudaRdcInfo in d]
    rdc_own = ctx.attr.rdc and toolkit.mode != "none"
    return [
        CudaRdcInfo(
            objects = depset(objects if rdc_own else [], transitive = [r.objects for r in rdc_deps]),
            archs = depset(archs.archs if rdc_own else [], transitive = [r.archs for r in rdc_deps], order = "preorder"),
        ),
        DefaultInfo(files = depset(files)),
        CcInfo(compilation_context = compilation_context, linking_context = linking_context),
        OutputGroupInfo(
            objects = depset(objects),
            ptx = depset(gpu_files["ptx"]),
            cubin = depset(gpu_files["cubin"]),
            fatbin = depset(gpu_files["fatbin"]),
        ),
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
        "rdc": attr.bool(
            default = False,
            doc = "Relocatable device code (-rdc=true): `extern __device__` across files and " +
                  "libraries; a cuda_device_link over the final link's rdc libraries links it.",
        ),
        "archs": attr.string_list(
            doc = "GPU archs (sm_80, sm_90, sm_90a, compute_90); default: --@cubridge//toolchains/cuda:archs.",
        ),
        "_archs_flag": attr.label(default = Label("//toolchains/cuda:archs"), providers = [CudaArchsInfo]),
        "_nvcc_object": attr.label(
            default = Label("//toolchains/cuda/private:nvcc_object.sh"),
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
        "_portable_runtime": attr.label(default = Label("//toolchains/cc:portable_runtime"), providers = [CcInfo]),
    },
    toolchains = use_cpp_toolchain() + [CUDA_TOOLCHAIN_TYPE],
    fragments = ["cpp"],
    provides = [CcInfo, CudaRdcInfo],
    doc = "Compiles CUDA sources with nvcc into a static, PIC, always-linked library (CcInfo).",
)
