"""The cuda_toolkit rule: what cuda_library needs to know about nvcc and cudart.

CudaToolkitInfo fields:
  nvcc: File, the nvcc driver.
  compiler_files: depset of Files nvcc reads (cicc, ptxas, headers, CCCL).
  host_compiler: string, absolute path of the C++ compiler nvcc runs (-ccbin).
  cudart: CcInfo of the static CUDA runtime, linked into every cuda_library user.
  devrt: File, libcudadevrt.a (the device runtime, for nvcc -dlink), or None.
  mode: "wheels" | "local" | "none".
  version: the toolkit's version, e.g. "13.0".
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

CudaToolkitInfo = provider(
    doc = "A CUDA toolkit for cuda_library.",
    fields = ["nvcc", "compiler_files", "host_compiler", "cudart", "devrt", "mode", "version"],
)

CUDA_TOOLCHAIN_TYPE = Label("//toolchains/cuda:toolchain_type")

def find_cuda_toolkit(ctx):
    """The CudaToolkitInfo of the resolved CUDA toolchain (rules list CUDA_TOOLCHAIN_TYPE)."""
    return ctx.toolchains[CUDA_TOOLCHAIN_TYPE].cuda

def _cuda_toolkit_impl(ctx):
    if ctx.attr.missing:
        fail(ctx.attr.missing)
    major = ctx.attr._version_flag[BuildSettingInfo].value
    if ctx.attr.mode == "local" and not ctx.attr.version.startswith(major + "."):
        fail("cubridge: --@cubridge//toolchains/cuda:version={} but the local CUDA toolkit is {}; ".format(major, ctx.attr.version) +
             "pass --@cubridge//toolchains/cuda:version={} or point CUDA_PATH at a CUDA {} toolkit".format(
                 ctx.attr.version.split(".")[0],
                 major,
             ))
    info = CudaToolkitInfo(
        nvcc = ctx.file.nvcc,
        compiler_files = depset(ctx.files.compiler_files + [ctx.file.nvcc]),
        host_compiler = ctx.attr.host_compiler,
        cudart = ctx.attr.cudart[CcInfo] if ctx.attr.cudart else None,
        devrt = ctx.file.devrt,
        mode = ctx.attr.mode,
        version = ctx.attr.version,
    )
    return [info, platform_common.ToolchainInfo(cuda = info)]

cuda_toolkit = rule(
    implementation = _cuda_toolkit_impl,
    attrs = {
        "compiler_files": attr.label(allow_files = True),
        "cudart": attr.label(providers = [CcInfo]),
        "devrt": attr.label(allow_single_file = True),
        "host_compiler": attr.string(),
        "missing": attr.string(doc = "If set, the toolkit is not there: fail with this message when resolved."),
        "mode": attr.string(values = ["wheels", "local", "none"]),
        "nvcc": attr.label(allow_single_file = True),
        "version": attr.string(),
        "_version_flag": attr.label(default = Label("//toolchains/cuda:version")),
    },
    doc = "Describes a CUDA toolkit (CudaToolkitInfo, and the ToolchainInfo of //toolchains/cuda:toolchain_type).",
)
