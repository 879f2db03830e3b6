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

Per target platform (CUDA 13): nvcc and nvvm run on the build machine and are
its wheels; every other component, the libraries and NCCL exist once per target
CPU (<name>_linux_x86_64, <name>_linux_aarch64, from the x86-64 and aarch64
wheels of the same version) behind a repository of aliases under the name
rules_cuda's toolkit uses (platform_alias.bzl), so that
--platforms=//platforms:linux_aarch64 links aarch64 libraries. Each is fetched
only when a build for its CPU needs it.
"""

load("@rules_cuda//cuda:repositories.bzl", rules_cuda_toolkit = "cuda_toolkit")

# buildifier: disable=bzl-visibility
load("@rules_cuda//cuda/private:templates/registry.bzl", "REGISTRY")
load("//toolchains/cuda/private:components.bzl", "cuda_deb_component", "cuda_empty_component", "cuda_wheel_component")
load("//toolchains/cuda/private:cuda_config.bzl", "cuda_config")
load("//toolchains/cuda/private:nccl_repository.bzl", "nccl_wheel")
load("//toolchains/cuda/private:platform_alias.bzl", "cuda_platform_alias")
load(
    "//toolchains/cuda/private:versions.bzl",
    "AARCH64_WHEEL_PLATFORMS",
    "CUDA12_LIBRARIES",
    "CUDA12_TOOLKIT_DEBS",
    "CUDA12_VERSION",
    "CUDA_AARCH64_SHA256",
    "CUDA_EXEC_COMPONENTS",
    "CUDA_LIBRARIES",
    "CUDA_TOOLKIT_WHEELS",
    "CUDA_VERSION",
    "CUDA_WHEEL_PREFIX",
    "NCCL_WHEEL",
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

def _aarch64_sha256(wheel, version):
    key = "{}=={}".format(wheel, version)
    if key not in CUDA_AARCH64_SHA256:
        fail("cubridge: no aarch64 wheel pinned for {} (CUDA_AARCH64_SHA256 in toolchains/cuda/private/versions.bzl)".format(key))
    return CUDA_AARCH64_SHA256[key]

def _target_component(name, component, version, prefix, wheels, files = []):
    """A component the target links or includes: one repository per CPU, and aliases at `name`."""
    cuda_wheel_component(name = name + "_linux_x86_64", component = component, version = version, prefix = prefix, wheels = [" ".join(w) for w in wheels])
    cuda_wheel_component(
        name = name + "_linux_aarch64",
        component = component,
        version = version,
        prefix = prefix,
        wheels = [" ".join([w[0], w[1], _aarch64_sha256(w[0], w[1])]) for w in wheels],
        platforms = AARCH64_WHEEL_PLATFORMS,
    )
    cuda_platform_alias(
        name = name,
        repos = {"aarch64": name + "_linux_aarch64", "x86_64": name + "_linux_x86_64"},
        targets = REGISTRY[component] + files,
        what = "CUDA {} {} ({})".format(version, component, wheels[0][0]),
    )

def _cuda_impl(mctx):
    toolkit = mctx.os.environ.get("CUBRIDGE_CUDA_TOOLKIT", "13")
    if toolkit not in ["13", "12", "local"]:
        fail("cubridge: CUBRIDGE_CUDA_TOOLKIT={} (--repo_env): expected 13, 12 or local".format(toolkit))

    # Every component of both pinned toolkits; only those a build uses are fetched.
    for component, wheels in CUDA_TOOLKIT_WHEELS.items():
        if component in CUDA_EXEC_COMPONENTS:
            cuda_wheel_component(name = "cuda13_" + component, component = component, version = wheels[0][1], prefix = CUDA_WHEEL_PREFIX, wheels = [" ".join(w) for w in wheels])
        else:
            _target_component("cuda13_" + component, component, wheels[0][1], CUDA_WHEEL_PREFIX, wheels)
    cuda_empty_component(
        name = "cuda13_culibos",
        component = "culibos",
        reason = "cubridge: no wheel ships libculibos.a, and CUDA 13.0's static runtime links without it.",
        static_libraries = ["libculibos.a"],
        version = CUDA_VERSION,
    )
    for component, spec in CUDA12_TOOLKIT_DEBS.items():
        cuda_deb_component(name = "cuda12_" + component, component = component, debs = spec.debs, files = spec.files, version = CUDA12_VERSION)
    for name, spec in CUDA_LIBRARIES.items():
        # Run-time files are named by their path in the component (toolchains/cuda:nvrtc).
        _target_component("cuda13_" + name, name, spec.version, spec.prefix, [(spec.wheel, spec.version, spec.sha256)], ["{}/lib/{}".format(name, f) for f in spec.runtime])
    for name, spec in CUDA12_LIBRARIES.items():
        cuda_wheel_component(name = "cuda12_" + name, component = name, version = spec.version, prefix = spec.prefix, wheels = [" ".join([spec.wheel, spec.version, spec.sha256])])

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
    major = version.split(".")[0]
    nccl_wheel(name = "nccl_linux_x86_64", cuda_major = major)
    nccl_repos = {"x86_64": "nccl_linux_x86_64"}
    if major == "13":
        nccl_wheel(name = "nccl_linux_aarch64", cuda_major = major, platforms = AARCH64_WHEEL_PLATFORMS, sha256 = _aarch64_sha256(NCCL_WHEEL[0], NCCL_WHEEL[1]))
        nccl_repos["aarch64"] = "nccl_linux_aarch64"
    cuda_platform_alias(name = "nccl", repos = nccl_repos, targets = ["headers", "libnccl"], what = "NCCL ({}, CUDA {})".format(NCCL_WHEEL[0] if major == "13" else "nvidia-nccl-cu12", major))

cuda = module_extension(
    implementation = _cuda_impl,
    environ = ["CUBRIDGE_CUDA_TOOLKIT", "CUDA_PATH"],
)
