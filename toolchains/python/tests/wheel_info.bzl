"""wheel_info: a py_wheel's PyWheelInfo as a text file, for tests."""

load("//toolchains/python:defs.bzl", "PyWheelInfo")

def _wheel_info_impl(ctx):
    info = ctx.attr.wheel[PyWheelInfo]
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(out, "\n".join([
        "wheel=" + info.wheel.short_path,
        "is_directory=" + str(info.wheel.is_directory),
        "name_file=" + info.name_file.short_path,
        "platform=" + info.platform,
        "platform_file=" + (info.platform_file.short_path if info.platform_file else ""),
        "distribution=" + info.distribution,
        "version=" + info.version,
        "python_tag=" + info.python_tag,
        "abi=" + info.abi,
    ]) + "\n")
    files = [out, info.wheel, info.name_file] + ([info.platform_file] if info.platform_file else [])
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = files))]

wheel_info = rule(
    implementation = _wheel_info_impl,
    attrs = {"wheel": attr.label(providers = [PyWheelInfo], mandatory = True)},
)
