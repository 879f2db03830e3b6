"""cuda_device_code: the PTX, cubins and fatbins of CUDA sources, as output groups.

rules_cuda's cuda_library gives objects only. Tools that load device code at run
time (cuModuleLoad, a JIT cache, an inspection with cuobjdump) want the device
code itself; this rule runs rules_cuda's toolchain (its nvcc, the host compiler,
--@rules_cuda//cuda:archs or `archs`) once per output:

  ptx     one <src>.compute_XX.ptx per source and virtual arch of the specs
  cubin   one <src>.sm_XX.cubin per source and real arch
  fatbin  one <src>.fatbin per source, every arch of the specs (the default output)

The upstream change that would remove it: these as output groups of rules_cuda's
cuda_objects / cuda_library.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load("@rules_cuda//cuda:defs.bzl", "CudaArchsInfo")

# buildifier: disable=bzl-visibility
load("@rules_cuda//cuda/private:providers.bzl", "CudaToolkitInfo")

def _specs(ctx):
    """[(virtual arch, [real archs], embeds PTX)] from the target's archs or the flag."""
    if ctx.attr.archs:
        specs = []
        for spec in ctx.attr.archs:
            virtual, _, codes = spec.rpartition(":")
            codes = codes.split(",")
            if not virtual:
                virtual = "compute_" + min([c.split("_", 1)[1] for c in codes])
            specs.append((virtual.removeprefix("compute_"), [c.removeprefix("sm_") for c in codes if c.startswith("sm_")], virtual in codes))
        return specs
    return [
        (s.stage1_arch, [a.arch for a in s.stage2_archs if a.gpu], len([a for a in s.stage2_archs if a.virtual]) > 0)
        for s in ctx.attr._archs_flag[CudaArchsInfo].arch_specs
    ]

def _stem(ctx, src):
    package = "/".join([p for p in [ctx.label.workspace_root, ctx.label.package] if p])
    path = src.path[len(src.root.path) + 1:] if src.root.path else src.path
    rel = path[len(package) + 1:] if package and path.startswith(package + "/") else src.basename
    return rel.rsplit(".", 1)[0]

# rules_cuda's toolchain type (its use_cuda_toolchain() names it relative to the
# rule's own repository, which works only inside rules_cuda).
_CUDA_TOOLCHAIN_TYPE = Label("@rules_cuda//cuda:toolchain_type")

def _cuda_device_code_impl(ctx):
    cuda = ctx.toolchains[_CUDA_TOOLCHAIN_TYPE]
    toolkit = cuda.cuda_toolkit[CudaToolkitInfo]
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(ctx = ctx, cc_toolchain = cc_toolchain)
    host_compiler = cc_common.get_tool_for_action(feature_configuration = features, action_name = ACTION_NAMES.cpp_compile)
    context = cc_common.merge_compilation_contexts(
        compilation_contexts = [d[CcInfo].compilation_context for d in ctx.attr.deps + [ctx.attr._runtime]],
    )
    env = dict(ctx.configuration.default_shell_env)
    if toolkit.cicc:
        env["CICC_PATH"] = toolkit.cicc.dirname
    if toolkit.libdevice:
        env["NVVMIR_LIBRARY_DIR"] = toolkit.libdevice.dirname
    inputs = depset(ctx.files.hdrs, transitive = [context.headers, cuda.all_files, cc_toolchain.all_files])
    specs = _specs(ctx)
    groups = {"cubin": [], "fatbin": [], "ptx": []}

    def nvcc(src, out, flags, what):
        args = ctx.actions.args()
        args.add_all(["-ccbin", host_compiler, "-x", "cu"])
        args.add_all(context.defines, format_each = "-D%s")
        args.add("-I.")
        args.add_all(context.quote_includes, format_each = "-I%s")
        args.add_all(context.includes, format_each = "-I%s")
        args.add_all(context.system_includes, format_each = "-isystem=%s")
        args.add_all(ctx.attr.copts)
        args.add_all(flags)
        args.add(src)
        args.add("-o", out)
        ctx.actions.run(
            executable = cuda.compiler_executable,
            arguments = [args],
            inputs = depset([src], transitive = [inputs]),
            outputs = [out],
            env = env,
            mnemonic = "CudaDeviceCode",
            progress_message = "Compiling CUDA %{label} (" + what + "): " + src.short_path,
        )

    for src in ctx.files.srcs:
        stem = "_device_code/{}/{}".format(ctx.label.name, _stem(ctx, src))
        gencode = []
        for virtual, reals, embed in specs:
            out = ctx.actions.declare_file("{}.compute_{}.ptx".format(stem, virtual))
            nvcc(src, out, ["--gpu-architecture=compute_" + virtual, "-ptx"], "compute_{} PTX".format(virtual))
            groups["ptx"].append(out)
            for real in reals:
                out = ctx.actions.declare_file("{}.sm_{}.cubin".format(stem, real))
                nvcc(src, out, ["--gpu-architecture=compute_" + virtual, "--gpu-code=sm_" + real, "-cubin"], "sm_{} cubin".format(real))
                groups["cubin"].append(out)
            codes = ["sm_" + r for r in reals] + (["compute_" + virtual] if embed else [])
            gencode += ["-gencode", "arch=compute_{},code=[{}]".format(virtual, ",".join(codes))]
        out = ctx.actions.declare_file(stem + ".fatbin")
        nvcc(src, out, gencode + ["-fatbin"], "fatbin")
        groups["fatbin"].append(out)
    return [
        DefaultInfo(files = depset(groups["fatbin"])),
        OutputGroupInfo(**{k: depset(v) for k, v in groups.items()}),
    ]

cuda_device_code = rule(
    implementation = _cuda_device_code_impl,
    attrs = {
        "archs": attr.string_list(doc = "Arch specs in rules_cuda's notation (\"compute_90:sm_90,sm_90a\"); default: --@rules_cuda//cuda:archs."),
        "copts": attr.string_list(doc = "Extra nvcc options."),
        "deps": attr.label_list(providers = [CcInfo], doc = "Libraries whose headers the sources include."),
        "hdrs": attr.label_list(allow_files = True, doc = "Headers the sources include."),
        "srcs": attr.label_list(allow_files = [".cu"], mandatory = True, doc = "CUDA sources."),
        "_archs_flag": attr.label(default = Label("@rules_cuda//cuda:archs"), providers = [CudaArchsInfo]),
        "_runtime": attr.label(default = Label("@rules_cuda//cuda:runtime"), providers = [CcInfo]),
    },
    toolchains = use_cpp_toolchain() + [_CUDA_TOOLCHAIN_TYPE],
    fragments = ["cpp"],
    doc = "The PTX (`ptx`), cubins (`cubin`) and fatbins (`fatbin`, default) of CUDA sources.",
)
