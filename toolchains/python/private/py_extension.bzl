"""py_extension: C/C++ sources plus CcInfo deps -> an importable CPython extension.

A macro over cc_binary(linkshared = True) with the headers of rules_python's
Python toolchain (@rules_python//python/cc:current_py_cc_headers): the shared
object exports only PyInit_<name> (a version script hides the rest, the static
CUDA runtime and libstdc++ included), then is placed at <package>/<module
path><suffix>, where the suffix is .abi3.so for the limited API and .so
otherwise (a name every CPython imports). Use the target in `data` of a
py_library whose `imports` makes the module's top-level package importable.
rules_python has no rule for extension modules yet (its py_cc_toolchain gives
the headers); this is the layer that would be one.
"""

def _hex2(n):
    digits = "0123456789ABCDEF"
    return digits[n // 16] + digits[n % 16]

def _limited_api_hex(version):
    """"3.11" -> "0x030B0000", the Py_LIMITED_API value."""
    major, minor = version.split(".")
    return "0x" + _hex2(int(major)) + _hex2(int(minor)) + "0000"

def _py_extension_file_impl(ctx):
    out = ctx.actions.declare_file(ctx.attr.out)
    ctx.actions.symlink(output = out, target_file = ctx.file.src)
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_py_extension_file = rule(
    implementation = _py_extension_file_impl,
    attrs = {
        "out": attr.string(mandatory = True),
        "src": attr.label(allow_single_file = True, mandatory = True),
    },
)

def py_extension(name, module, srcs, deps = [], copts = [], linkopts = [], limited_api = "3.11", **kwargs):
    """A CPython extension module.

    Args:
      name: target name; the importable file is its output.
      module: dotted module name, e.g. "cubridge._native".
      srcs: C/C++ sources and private headers.
      deps: cc_library / cuda_library dependencies (linked statically).
      copts: extra compiler options.
      linkopts: extra linker options.
      limited_api: minimum CPython of the stable ABI ("3.11" -> Py_LIMITED_API
        0x030B0000 and a .abi3.so), or None for a version-specific module.
      **kwargs: visibility, tags, testonly, ...
    """
    leaf = module.rsplit(".", 1)[-1]
    suffix = ".abi3.so" if limited_api else ".so"
    api_copts = ["-DPy_LIMITED_API=" + _limited_api_hex(limited_api)] if limited_api else []
    native.genrule(
        name = name + "_exports",
        outs = [name + "_exports.lds"],
        cmd = "echo '{ global: PyInit_%s; local: *; };' > $@" % leaf,
        visibility = ["//visibility:private"],
    )
    native.cc_binary(
        name = name + "_so",
        srcs = srcs,
        deps = deps + [Label("@rules_python//python/cc:current_py_cc_headers")],
        # Optimized unless --compilation_mode=dbg, as cuda_library compiles
        # (and as setuptools builds extensions): Bazel's default fastbuild mode
        # compiles C at -O0, which made every call's argument handling slower.
        copts = select({
            Label("//toolchains/cc:dbg"): [],
            "//conditions:default": ["-O2"],
        }) + copts + api_copts + ["-fvisibility=hidden"],
        linkopts = linkopts + ["-Wl,--version-script=$(location :%s_exports)" % name],
        additional_linker_inputs = [":%s_exports" % name],
        linkshared = True,
        linkstatic = True,
        visibility = ["//visibility:private"],
        **{k: v for k, v in kwargs.items() if k in ["tags", "testonly", "target_compatible_with"]}
    )
    _py_extension_file(
        name = name,
        src = ":%s_so" % name,
        out = module.replace(".", "/") + suffix,
        **kwargs
    )
