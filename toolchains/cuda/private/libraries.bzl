"""BUILD text for the CUDA library targets (cuBLAS, cuRAND, ...) of a repository.

Used by the wheel repositories (@cuda_<name>, one per library) and by the local
toolkit (@cuda_local), so that both offer the same targets.
"""

_HEADERS = Label("//toolchains/cuda:headers")

def find_soname(rctx, libdir, lib):
    """The file lib<lib>.so.<major> in libdir: what the linker records as NEEDED.

    Args:
      rctx: the repository context.
      libdir: the directory, relative to the repository.
      lib: the library's name without lib and .so (cublas).

    Returns:
      The file's name, or None when there is none.
    """
    prefix = "lib{}.so.".format(lib)
    for entry in rctx.path(libdir).readdir():
        rest = entry.basename[len(prefix):] if entry.basename.startswith(prefix) else ""
        if rest and rest.isdigit():
            return entry.basename
    return None

def _missing_build(rctx, name, lib):
    """A target that fails, naming what is missing, only when something links it."""
    return """\
genrule(
    name = "{name}_missing",
    outs = ["lib{name}_missing.a"],
    cmd = "echo 'cubridge: {what} not found in {dir}' >&2; exit 1",
)

cc_library(
    name = "{name}",
    srcs = [":{name}_missing"],
)
""".format(name = name, what = "lib{}.so.<major>".format(lib), dir = rctx.path("lib").realpath)

def wheel_rpaths(wheel_prefix):
    """Run-time search paths for binaries and extensions that link a wheel's libraries.

    The libraries sit in <dir>/nvidia/cu13/lib (CUDA 12: <dir>/nvidia/<library>/lib):
    beside a binary (cuda_runtime_libs lays them out so), or in site-packages one
    or two levels above an extension (the NVIDIA wheels' own layout, as torch
    and CuPy find them).

    Args:
      wheel_prefix: the wheel's directory in site-packages (nvidia/cu13, nvidia/cublas).

    Returns:
      Linker flags.
    """
    return [
        "-Wl,-rpath,$$ORIGIN/{}/lib".format(up + wheel_prefix)
        for up in ["", "../", "../../"]
    ]

def library_build(rctx, name, spec, rpath, deps_repo):
    """A cc_library named `name`: the library's headers and shared libraries.

    Args:
      rctx: the repository context (the files are under lib/ and include/).
      name: the target name, a key of CUDA_LIBRARIES.
      spec: its CUDA_LIBRARIES entry.
      rpath: an absolute library directory to search at run time, or "" for the
        wheel layout (see wheel_rpaths; spec.prefix is the wheel's directory).
      deps_repo: how other libraries are named: "@cuda_{}" (CUDA 12:
        "@cuda12_{}") for the wheel repositories (each holds its own headers),
        "" for targets of this repository (the local toolkit, whose headers are
        all in :headers).

    Returns:
      BUILD file text.
    """
    srcs = []
    for lib in spec.libs:
        soname = find_soname(rctx, "lib", lib)
        if not soname:
            return _missing_build(rctx, name, lib)
        srcs.append(soname)
    srcs += [f for f in spec.runtime if rctx.path("lib/" + f).exists]
    linkopts = (["-Wl,-rpath," + rpath] if rpath else wheel_rpaths(spec.prefix)) if srcs else []
    deps = [(deps_repo.format(d) if deps_repo else "") + "//:" + d for d in spec.deps]
    return """\
cc_library(
    name = "{name}",
    srcs = {srcs},
    hdrs = {hdrs},
    includes = {includes},
    linkopts = {linkopts},
    deps = {deps},
)
""".format(
        name = name,
        hdrs = 'glob(["include/**"], allow_empty = True)' if deps_repo else "[]",
        includes = repr(["include"] if deps_repo else []),
        srcs = repr(["lib/" + s for s in srcs]),
        linkopts = repr(linkopts),
        deps = repr(deps + [str(_HEADERS)]),
    )
