"""kernel_binding: one declaration per kernel, a Go package, a Python extension and CcInfo."""

load("@rules_go//go:def.bzl", "go_library")
load("@rules_python//python:defs.bzl", "py_library")
load("//toolchains/python:defs.bzl", "py_extension")
load(":cubind.bzl", "cubind")

def _group(name, gen, group):
    native.filegroup(
        name = name,
        srcs = [gen],
        output_group = group,
        visibility = ["//visibility:private"],
    )

def kernel_binding(
        name,
        srcs,
        py_module,
        go_importpath,
        deps = [],
        go_package = None,
        visibility = None,
        tags = [],
        target_compatible_with = None):
    """Bindings of your own kernels, generated from their declarations (docs/bind.md).

    Targets (NAME is `name`):
      NAME_header: cc_library of the generated headers (`#include "KERNEL.bind.h"`):
        the entry points' prototypes; your kernels' cuda_library depends on it.
      NAME: cc_library (CcInfo) of the descriptors, over `deps` (your kernels); C
        and C++ call a kernel with KERNEL_call() when they link @cubridge//cuda:cubridge.
      NAME_go: rules_go go_library at `go_importpath`, over cubridge's Go package.
        gazelle does not see it (its source is generated): tell gazelle with
        `# gazelle:resolve go IMPORTPATH //PKG:NAME_go`.
      NAME_py: py_library (PyInfo) with the extension `py_module` (NAME_ext,
        abi3) and its .pyi stub, over cubridge's Python package, whose C API
        the extension calls: it links no cubridge code itself.
      NAME_contract_test: cc_test of the generated contract checks (dtypes, shapes,
        missing arrays, empty calls), linked with cubridge's library.
      NAME_doc: the generated Markdown reference of the kernels.

    Args:
      name: base name of the targets.
      srcs: the .bind declarations, one kernel each.
      py_module: the extension's dotted module name, e.g. "mysaxpy._saxpy": its
        top-level package is a directory of this package.
      go_importpath: the Go package's import path.
      deps: the cuda_library / cc_library targets that define the entry points.
      go_package: the Go package name (default: the last element of go_importpath).
      visibility: of the public targets.
      tags: of every target.
      target_compatible_with: of every target (e.g. requires_cuda() for cuBLAS).
    """
    if go_package == None:
        go_package = go_importpath.rsplit("/", 1)[-1].replace("-", "_").replace(".", "_")
    common = {"tags": tags}
    if target_compatible_with != None:
        common["target_compatible_with"] = target_compatible_with
    gen = name + "_gen"
    cubind(
        name = gen,
        srcs = srcs,
        py_module = py_module,
        go_package = go_package,
        go_importpath = go_importpath,
        visibility = ["//visibility:private"],
        **common
    )
    for group in ["headers", "c", "python", "pyi", "go", "cctest", "doc"]:
        _group(name + "_" + group + "_files", ":" + gen, group)
    native.cc_library(
        name = name + "_header",
        hdrs = [":" + name + "_headers_files"],
        includes = ["."],
        deps = [Label("//cuda:headers")],
        visibility = visibility,
        **common
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_c_files"],
        deps = deps + [":" + name + "_header"],
        visibility = visibility,
        **common
    )
    go_library(
        name = name + "_go",
        srcs = [":" + name + "_go_files"],
        cdeps = [":" + name],
        cgo = True,
        importpath = go_importpath,
        deps = [Label("//go/cubridge")],
        visibility = visibility,
        **common
    )
    py_extension(
        name = name + "_ext",
        module = py_module,
        srcs = [":" + name + "_python_files"],
        deps = [
            ":" + name,
            Label("//python:c_api"),
        ],
        visibility = ["//visibility:private"],
        **common
    )
    py_library(
        name = name + "_py",
        data = [
            ":" + name + "_ext",
            ":" + name + "_pyi_files",
        ],
        imports = ["."],
        deps = [Label("//python:cubridge")],
        visibility = visibility,
        **common
    )
    native.cc_test(
        name = name + "_contract_test",
        srcs = [":" + name + "_cctest_files"],
        linkstatic = True,
        deps = [
            ":" + name,
            Label("//cuda:cubridge"),
        ],
        **common
    )
    native.filegroup(
        name = name + "_doc",
        srcs = [":" + name + "_doc_files"],
        visibility = visibility,
        **common
    )
