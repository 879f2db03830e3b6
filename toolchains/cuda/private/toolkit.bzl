"""The cuda_toolkit rule: what cuda_library needs to know about nvcc and cudart.

CudaToolkitInfo fields:
  nvcc: File, the nvcc driver.
  compiler_files: depset of Files nvcc reads (cicc, ptxas, headers, CCCL).
  host_compiler: string, absolute path of the C++ compiler nvcc runs (-ccbin).
  cudart: CcInfo of the static CUDA runtime, linked into every cuda_library user.
  mode: "wheels" | "local" | "none".
  version: the toolkit's version, e.g. "13.0".
"""

CudaToolkitInfo = provider(
    doc = "A CUDA toolkit for cuda_library.",
    fields = ["nvcc", "compiler_files", "host_compiler", "cudart", "mode", "version"],
)

def _cuda_toolkit_impl(ctx):
    return [CudaToolkitInfo(
        nvcc = ctx.file.nvcc,
        compiler_files = depset(ctx.files.compiler_files + [ctx.file.nvcc]),
        host_compiler = ctx.attr.host_compiler,
        cudart = ctx.attr.cudart[CcInfo] if ctx.attr.cudart else None,
        mode = ctx.attr.mode,
        version = ctx.attr.version,
    )]

cuda_toolkit = rule(
    implementation = _cuda_toolkit_impl,
    attrs = {
        "compiler_files": attr.label(allow_files = True),
        "cudart": attr.label(providers = [CcInfo]),
        "host_compiler": attr.string(),
        "mode": attr.string(values = ["wheels", "local", "none"]),
        "nvcc": attr.label(allow_single_file = True),
        "version": attr.string(),
    },
    doc = "Describes a CUDA toolkit; instantiated by cubridge's repository rules.",
)
