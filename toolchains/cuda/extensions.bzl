"""Module extension `cuda`: the CUDA toolkit for rules_cuda, from pinned packages.

    cuda = use_extension("@cubridge//toolchains/cuda:extensions.bzl", "cuda")
    use_repo(cuda, "cuda", "cuda_config", "nccl")
    rules_cuda_toolchain = use_extension("@rules_cuda//cuda:extensions.bzl", "toolchain")
    override_repo(rules_cuda_toolchain, cuda = "cuda")

@cuda is rules_cuda's toolkit repository, made by rules_cuda's own
`cuda_toolkit` rule from components that cubridge fetches (components.bzl):
every component, library ones included (@cuda//:cublas, ...), is a repository
of its own, fetched only when a target needs it. --repo_env=CUBRIDGE_CUDA_TOOLKIT
picks the toolkit:
  13     (default) nvcc 13.0.88, cudart 13.0.96, CCCL 13.0.85, ... from the wheels
         of the Python package index, and the CUDA 13 library wheels;
  12     nvcc / cudart 12.4 from Debian's packages, CCCL 2.5.0, the -cu12 wheels;
  local  the toolkit at $CUDA_PATH (else /usr/local/cuda), as rules_cuda finds it.
@cuda_config says which (cuda_config.bzl); @nccl is NCCL's header and library
from the pinned nvidia-nccl-cu13 (-cu12) wheel.
"""

load("@rules_cuda//cuda:repositories.bzl", rules_cuda_toolkit = "cuda_toolkit")
load("//toolchains/cuda/private:components.bzl", "cuda_deb_component", "cuda_empty_component", "cuda_wheel_component")
load("//toolchains/cuda/private:cuda_config.bzl", "cuda_config")
load("//toolchains/cuda/private:nccl_repository.bzl", "nccl_wheel")
load(
    "//toolchains/cuda/private:versions.bzl",
    "CUDA12_LIBRARIES",
    "CUDA12_TOOLKIT_DEBS",
    "CUDA12_VERSION",
    "CUDA_LIBRARIES",
    "CUDA_TOOLKIT_WHEELS",
    "CUDA_VERSION",
    "CUDA_WHEEL_PREFIX",
)

def _local_toolkit(mctx):
    """(version, library directory) of the local toolkit, or ("", "") without one."""
    root = mctx.os.environ.get("CUDA_PATH", "") or "/usr/local/cuda"
    nvcc = mctx.path(root + "/bin/nvcc")
    if not nvcc.exists:
        return "", ""
    for line in mctx.execute([nvcc, "--version"]).stdout.splitlines():
        if ", release " in line:
            lib = root + "/lib64"
            if not mctx.path(lib).exists:
                lib = root + "/lib"
            return line.split(", release ")[1].split(",")[0], lib
    return "", ""

def _cuda_impl(mctx):
    toolkit = mctx.os.environ.get("CUBRIDGE_CUDA_TOOLKIT", "13")
    if toolkit not in ["13", "12", "local"]:
        fail("cubridge: CUBRIDGE_CUDA_TOOLKIT={} (--repo_env): expected 13, 12 or local".format(toolkit))

    # Every component of both pinned toolkits; only those a build uses are fetched.
    for component, wheels in CUDA_TOOLKIT_WHEELS.items():
        cuda_wheel_component(name = "cuda13_" + component, component = component, version = wheels[0][1], prefix = CUDA_WHEEL_PREFIX, wheels = [" ".join(w) for w in wheels])
    cuda_empty_component(
        name = "cuda13_culibos",
        component = "culibos",
        reason = "cubridge: no wheel ships libculibos.a, and CUDA 13.0's static runtime links without it.",
        static_libraries = ["libculibos.a"],
        version = CUDA_VERSION,
    )
    for component, spec in CUDA12_TOOLKIT_DEBS.items():
        cuda_deb_component(name = "cuda12_" + component, component = component, debs = spec.debs, files = spec.files, version = CUDA12_VERSION)
    for prefix, libraries in [("cuda13_", CUDA_LIBRARIES), ("cuda12_", CUDA12_LIBRARIES)]:
        for name, spec in libraries.items():
            cuda_wheel_component(name = prefix + name, component = name, version = spec.version, prefix = spec.prefix, wheels = [" ".join([spec.wheel, spec.version, spec.sha256])])

    local_lib = ""
    if toolkit == "local":
        version, local_lib = _local_toolkit(mctx)
        if not version:
            fail("cubridge: CUBRIDGE_CUDA_TOOLKIT=local, but there is no nvcc at $CUDA_PATH/bin (or /usr/local/cuda/bin)")
        rules_cuda_toolkit(name = "cuda")
    else:
        version = CUDA_VERSION if toolkit == "13" else CUDA12_VERSION
        components = (CUDA_TOOLKIT_WHEELS.keys() + ["culibos"]) if toolkit == "13" else CUDA12_TOOLKIT_DEBS.keys()
        libraries = CUDA_LIBRARIES if toolkit == "13" else CUDA12_LIBRARIES
        rules_cuda_toolkit(
            name = "cuda",
            components_mapping = {c: "@cuda{}_{}".format(toolkit, c) for c in list(components) + list(libraries.keys())},
            version = version,
            nvcc_version = version,
        )
    cuda_config(name = "cuda_config", toolkit = toolkit, version = version, local_lib = local_lib)
    nccl_wheel(name = "nccl", cuda_major = version.split(".")[0])

cuda = module_extension(
    implementation = _cuda_impl,
    environ = ["CUBRIDGE_CUDA_TOOLKIT", "CUDA_PATH"],
)
