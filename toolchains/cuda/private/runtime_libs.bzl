"""cuda_runtime_libs: the shared CUDA libraries of some targets, laid out as in site-packages.

The wheel libraries (//toolchains/cuda:cublas, ...) carry run-time search paths
$ORIGIN/nvidia/cu13/lib, $ORIGIN/../nvidia/cu13/lib and
$ORIGIN/../../nvidia/cu13/lib (CUDA 12: nvidia/cublas/lib, nvidia/curand/lib,
... one directory per wheel): the layout of the NVIDIA wheels in site-packages,
where an installed extension finds them. This rule makes the same layout inside
a Bazel package, <package>/nvidia/cu13/lib/<soname>, so that:
  - a Go (or any) binary of that package finds them beside itself, in bazel-bin
    and when copied out together with that directory;
  - a Python extension of that package (<package>/<pkg>/_ext.abi3.so) finds
    them one level up, in the runfiles of bazel test / bazel run.
cc_test and cc_binary need none of this (Bazel's own solib paths find them).
Give it as `data` to tests and binaries, not to a py_library that a wheel
packs (the wheel requires the NVIDIA wheels instead of carrying the files).
"""

load(":versions.bzl", "CUDA12_LIBRARIES", "CUDA_WHEEL_PREFIX")

def _wheel_dir(src):
    """nvidia/cu13 for the CUDA 13 wheels; CUDA 12 wheels each have their own (nvidia/cublas)."""
    repo = src.owner.workspace_name if src.owner else ""
    for name, spec in CUDA12_LIBRARIES.items():
        if repo.endswith("cuda12_" + name):
            return spec.prefix
    return CUDA_WHEEL_PREFIX

def _cuda_runtime_libs_impl(ctx):
    outputs = {}
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for lib in linker_input.libraries:
                src = lib.resolved_symlink_dynamic_library or lib.dynamic_library
                if not src or src.basename in outputs:
                    continue
                out = ctx.actions.declare_file(_wheel_dir(src) + "/lib/" + src.basename)
                ctx.actions.symlink(output = out, target_file = src)
                outputs[src.basename] = out
    files = depset(outputs.values())
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

cuda_runtime_libs = rule(
    implementation = _cuda_runtime_libs_impl,
    attrs = {
        "deps": attr.label_list(
            providers = [CcInfo],
            doc = "Targets whose shared libraries (transitively) are laid out.",
        ),
    },
    doc = "Lays out the shared libraries of `deps` as <package>/nvidia/cu13/lib/<soname> (one per package).",
)
