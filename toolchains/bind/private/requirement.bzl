"""The requirement of a wheel of bound kernels on cubridge's own wheel."""

load("@cuda_config//:defs.bzl", "CUDA_MAJOR")
load("//python:version.bzl", "VERSION")

# "cubridge-cu13==0.2.0": the distribution //python:wheel builds for this toolkit.
CUBRIDGE_REQUIREMENT = "cubridge-cu{}=={}".format(CUDA_MAJOR, VERSION)
