"""Module extension `python_cross`: the aarch64 CPython of --config=aarch64 (qemu_python.bzl)."""

load("//toolchains/python/private:qemu_python.bzl", "qemu_python_runtime")

def _python_cross_impl(_mctx):
    qemu_python_runtime(
        name = "python_linux_aarch64",
        cpu = "aarch64",
        python = "python3.14",
        qemu = "qemu-aarch64",
    )

python_cross = module_extension(implementation = _python_cross_impl)
