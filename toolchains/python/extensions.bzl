"""Module extension for the Python headers that py_extension compiles against."""

load("//toolchains/python/private:repositories.bzl", "python_headers")

def _python_impl(_mctx):
    python_headers(name = "python_headers")

python = module_extension(implementation = _python_impl)
