"""Public API of cubridge's Python rules.

    load("@cubridge//toolchains/python:defs.bzl", "py_extension")
"""

load("//toolchains/python/private:py_extension.bzl", _py_extension = "py_extension")

py_extension = _py_extension
