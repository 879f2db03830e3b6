"""Public API of cubridge's bindings of your own kernels (docs/bind.md).

    load("@cubridge//toolchains/bind:defs.bzl", "kernel_binding", "CUBRIDGE_REQUIREMENT")
"""

load("//toolchains/bind/private:kernel_binding.bzl", _kernel_binding = "kernel_binding")
load("//toolchains/bind/private:requirement.bzl", _CUBRIDGE_REQUIREMENT = "CUBRIDGE_REQUIREMENT")

kernel_binding = _kernel_binding

# The wheel requirement a wheel of bound kernels needs: the cubridge wheel of
# this toolkit's CUDA major and this version ("cubridge-cu13==0.2.0").
CUBRIDGE_REQUIREMENT = _CUBRIDGE_REQUIREMENT
