"""Public API of cubridge's Python rules.

    load("@cubridge//toolchains/python:defs.bzl", "py_extension", "py_wheel", "pytest_test", "wheel_check_test", "PyWheelInfo")
"""

load("//toolchains/python/private:providers.bzl", _PyWheelInfo = "PyWheelInfo")
load("//toolchains/python/private:py_extension.bzl", _py_extension = "py_extension")
load("//toolchains/python/private:py_wheel.bzl", _py_wheel = "py_wheel")
load("//toolchains/python/private:pytest_test.bzl", _pytest_test = "pytest_test")
load("//toolchains/python/private:wheel_check_test.bzl", _wheel_check_test = "wheel_check_test")

py_extension = _py_extension
py_wheel = _py_wheel
PyWheelInfo = _PyWheelInfo
pytest_test = _pytest_test
wheel_check_test = _wheel_check_test
