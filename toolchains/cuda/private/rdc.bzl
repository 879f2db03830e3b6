"""Relocatable device code: the CudaRdcInfo provider and the cuda_device_link rule.

cuda_library(rdc = True) compiles with -rdc=true, so `extern __device__`
functions and variables may live in another file or another cuda_library. Such
objects need one device-link step (nvcc -dlink) over all of them before the host
link. cuda_device_link is that step: it takes the rdc libraries of a final link
(transitively, through cuda_library deps), device-links them once, and returns
a CcInfo holding the device-link object plus everything of its deps, so any
final link (cc_binary, cc_test, cubridge's go_binary / go_test, py_extension)
that depends on it links correctly. Use one per final link: two device links of
the same rdc objects in one binary define the same registration symbols twice.
In mode=none there is no device code: cuda_device_link passes its deps through.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load(":archs.bzl", "gencode_flags")
load(":toolkit.bzl", "CUDA_TOOLCHAIN_TYPE", "find_cuda_toolkit")

CudaRdcInfo = provider(
    doc = "Relocatable device code of a cuda_library and its cuda_library deps.",
    fields = {
        "archs": "depset of arch names (sm_90, compute_90) the rdc objects were compiled for.",
        "objects": "depset of the -rdc=true objects (File), transitively; empty in mode=none.",
    },
)

def _cuda_device_link_impl(ctx):
    toolkit = find_cuda_toolkit(ctx)
    dep_cc = [d[CcInfo] for d in ctx.attr.deps]
    rdc = [d[CudaRdcInfo] for d in ctx.attr.deps if CudaRdcInfo in d]
    objects = depset(transitive = [r.objects for r in rdc]).to_list()
    if toolkit.mode == "none" or not objects:
        return [CcInfo(
            compilation_context = cc_common.merge_compilation_contexts(
                compilation_contexts = [c.compilation_context for c in dep_cc],
            ),
            linking_context = cc_common.merge_linking_contexts(
                linking_contexts = [c.linking_context for c in dep_cc],
            ),
        ), DefaultInfo(files = depset())]

    archs = depset(transitive = [r.archs for r in rdc], order = "preorder").to_list()
    out = ctx.actions.declare_file("_dlink/{}.dlink.o".format(ctx.label.name))
    cc_toolchain = find_cpp_toolchain(ctx)
    args = ctx.actions.args()
    args.add_all([cc_toolchain.objcopy_executable, out, toolkit.nvcc])
    args.add("-ccbin", toolkit.host_compiler)
    args.add("-Xcompiler=-fPIC")
    args.add_all(gencode_flags(archs))
    if toolkit.devrt:
        args.add("-L" + toolkit.devrt.dirname)
    args.add("-dlink")
    args.add_all(objects)
    args.add("-o", out)
    ctx.actions.run(
        executable = ctx.executable._nvcc_object,
        arguments = [args],
        tools = [toolkit.nvcc],
        inputs = depset(objects + ([toolkit.devrt] if toolkit.devrt else []), transitive = [toolkit.compiler_files]),
        outputs = [out],
        mnemonic = "CudaDeviceLink",
        progress_message = "Device-linking CUDA %{label} (" + str(len(objects)) + " rdc objects)",
        use_default_shell_env = True,
    )
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    linking_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = cc_common.create_compilation_outputs(objects = depset([out]), pic_objects = depset([out])),
        linking_contexts = [c.linking_context for c in dep_cc] + ([toolkit.cudart.linking_context] if toolkit.cudart else []),
        alwayslink = True,
        disallow_dynamic_library = True,
    )
    return [
        CcInfo(
            compilation_context = cc_common.merge_compilation_contexts(
                compilation_contexts = [c.compilation_context for c in dep_cc],
            ),
            linking_context = linking_context,
        ),
        DefaultInfo(files = depset([out])),
    ]

cuda_device_link = rule(
    implementation = _cuda_device_link_impl,
    attrs = {
        "deps": attr.label_list(
            providers = [CcInfo],
            doc = "The libraries of a final link; the rdc objects of their cuda_library deps are device-linked.",
        ),
        "_nvcc_object": attr.label(
            default = Label("//toolchains/cuda/private:nvcc_object.sh"),
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
    },
    toolchains = use_cpp_toolchain() + [CUDA_TOOLCHAIN_TYPE],
    fragments = ["cpp"],
    provides = [CcInfo],
    doc = "One nvcc -dlink over the rdc objects of `deps`; a CcInfo for the final link.",
)
