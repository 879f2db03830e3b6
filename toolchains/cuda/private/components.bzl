"""rules_cuda toolkit components from pinned packages, instead of NVIDIA's download server.

rules_cuda builds a hermetic toolkit from "components" (`cuda.component`): one
repository per NVIDIA redistributable archive (nvcc, cudart, cccl, cublas, ...),
laid out as <component>/{bin,include,lib,nvvm} with rules_cuda's BUILD file for
it, and an @cuda repository whose targets alias them. Those archives come from
a server these machines cannot reach. The same files are in reachable packages:

  cuda_wheel_component  a component from its pinned wheel of the Python package
                        index (pip, as this machine configures it, hash-checked);
  cuda_deb_component    a component from pinned Debian packages (CUDA 12.4's
                        toolkit, which the package index has no nvcc for);
  cuda_empty_component  a component no package ships and nothing needs
                        (culibos: CUDA 13's static runtime links without it).

Each gives the layout and BUILD file rules_cuda's `cuda_component` gives, so
rules_cuda's own `cuda_toolkit` takes them as its components_mapping. The
upstream change that would remove this file: a `cuda.component` source other
than an archive URL (a wheel fetched by pip, a Debian package).

Two additions over a plain component, both for reproducible builds: the nvcc
component's `nvcc` is cubridge's wrapper (nvcc_wrapper.sh, the real one beside it
as nvcc.real), and CUDA 12.4's crt/math_functions.h gets the `noexcept` that
glibc >= 2.41 gives rsqrt, sinpi and cospi (CUDA 13.0 has the same problem and
the same fix; CUDA 12.9 and 13.1 have it upstream).
"""

# buildifier: disable=bzl-visibility
load("@rules_cuda//cuda/private:template_helper.bzl", "template_helper")
load(":pip_download.bzl", "pip_download")

_NVCC_WRAPPER = Label("//toolchains/cuda/private:nvcc_wrapper.sh")
_UNPACK_WHEEL = Label("//toolchains/cuda/private:unpack_wheel.py")

def _finish(rctx, component, version, descriptive_name):
    """What every component gets after its files are in place: fixes, version.json, BUILD."""
    if component == "nvcc":
        _install_nvcc_wrapper(rctx, component)
        if int(version.split(".")[0]) >= 13:
            _defer_nvcc_profile_paths(rctx, component)
    for header in ["include/crt/math_functions.h"]:
        if rctx.path("{}/{}".format(component, header)).exists:
            _patch_math_functions(rctx, "{}/{}".format(component, header))
    _link_unversioned_libraries(rctx, component)
    if not rctx.path(component + "/LICENSE").exists:
        fail("cubridge: the {} component has no LICENSE".format(component))
    rctx.file("{}/version.json".format(component), json.encode({
        component: {"name": descriptive_name, "version": version},
    }))
    template_helper.generate_build(
        rctx,
        libpath = "lib",
        components = {component: rctx.name},
        is_cuda_repo = False,
        is_deliverable = True,
    )

def _install_nvcc_wrapper(rctx, component):
    nvcc = "{}/bin/nvcc".format(component)
    result = rctx.execute(["mv", nvcc, nvcc + ".real"])
    if result.return_code != 0:
        fail("cubridge: moving {} aside failed: {}".format(nvcc, result.stderr))
    rctx.file(nvcc, rctx.read(_NVCC_WRAPPER), executable = True)

def _defer_nvcc_profile_paths(rctx, component):
    """nvcc >= 13 finds cicc and libdevice through its profile; rules_cuda sets them per action.

    As rules_cuda's cuda_component does for its nvcc archives: the profile's own
    CICC_PATH and NVVMIR_LIBRARY_DIR would point into this repository's nvvm/,
    which the nvvm component holds instead.
    """
    profile = "{}/bin/nvcc.profile".format(component)
    lines = []
    for line in rctx.read(profile).split("\n"):
        for key in ["CICC_PATH", "NVVMIR_LIBRARY_DIR"]:
            if line.strip().startswith(key) and "=" in line:
                line = "{} ?= {}-is-set-by-rules_cuda".format(key, key)
        lines.append(line)
    rctx.file(profile, "\n".join(lines))

def _link_unversioned_libraries(rctx, component):
    """lib<x>.so -> lib<x>.so.<major>, as NVIDIA's archives have (wheels keep only the versioned)."""
    lib = rctx.path(component + "/lib")
    if not lib.exists:
        return
    for entry in lib.readdir():
        name = entry.basename
        if ".so." not in name:
            continue
        stem, rest = name.split(".so.", 1)
        if rest.isdigit() and not rctx.path("{}/lib/{}.so".format(component, stem)).exists:
            rctx.symlink(name, "{}/lib/{}.so".format(component, stem))

# glibc >= 2.41 declares sinpi, cospi and rsqrt (C23) noexcept; CUDA 12.4's and
# 13.0's declarations of the same functions are not, which every C++ compile
# that includes <cmath> rejects.
_GLIBC_NOEXCEPT = """
/* cubridge: glibc >= 2.41 declares sinpi, cospi and rsqrt (C23) noexcept; so does CUDA >= 12.9 here. */
#if defined(__cplusplus) && defined(__has_include)
#if __has_include(<features.h>)
#include <features.h>
#endif
#endif
#if defined(__cplusplus) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 41))
#define __CUBRIDGE_GLIBC_NOEXCEPT noexcept(true)
#else
#define __CUBRIDGE_GLIBC_NOEXCEPT
#endif
"""

def _patch_math_functions(rctx, path):
    text = rctx.read(path)
    decls = [(f, t) for f, t in [
        ("rsqrt", "double"),
        ("rsqrtf", "float"),
        ("sinpi", "double"),
        ("sinpif", "float"),
        ("cospi", "double"),
        ("cospif", "float"),
    ] if text.count(" {}({} x);".format(f, t)) == 1]
    if not decls:
        return  # already declared noexcept (CUDA >= 12.9 / 13.1)
    anchor = '#include "host_defines.h"\n'
    if text.count(anchor) != 1:
        fail("cubridge: {}: expected one `{}` to patch".format(path, anchor.strip()))
    text = text.replace(anchor, anchor + _GLIBC_NOEXCEPT)
    for f, t in decls:
        text = text.replace(" {}({} x);".format(f, t), " {}({} x) __CUBRIDGE_GLIBC_NOEXCEPT;".format(f, t))
    rctx.file(path, text)

# ---- from a wheel --------------------------------------------------------------

def _cuda_wheel_component_impl(rctx):
    component = rctx.attr.component
    requirements = []
    for spec in rctx.attr.wheels:
        wheel, version, sha256 = spec.split(" ")
        requirements.append("{}=={} --hash=sha256:{}".format(wheel, version, sha256))
    python, wheels = pip_download(rctx, requirements, "{} component ({})".format(component, ", ".join(rctx.attr.wheels)), rctx.attr.platforms)
    for wheel in wheels:
        result = rctx.execute([python, rctx.path(_UNPACK_WHEEL), component, rctx.attr.prefix, wheel])
        if result.return_code != 0:
            fail("cubridge: unpacking {} failed:\n{}".format(wheel, result.stderr))
    rctx.delete("wheels")
    rctx.delete("requirements.txt")
    _finish(rctx, component, rctx.attr.version, rctx.attr.wheels[0].split(" ")[0])

cuda_wheel_component = repository_rule(
    implementation = _cuda_wheel_component_impl,
    attrs = {
        "component": attr.string(mandatory = True, doc = "rules_cuda's component name: nvcc, cudart, cublas, ..."),
        "platforms": attr.string_list(doc = "Wheel platform tags for another target than the build machine (pip download --platform)."),
        "prefix": attr.string(mandatory = True, doc = "The wheels' directory of the component: nvidia/cu13, nvidia/cublas."),
        "version": attr.string(mandatory = True, doc = "The component's version (its first wheel's)."),
        "wheels": attr.string_list(mandatory = True, doc = "\"WHEEL VERSION SHA256\" of each wheel unpacked into it, the component's own first."),
    },
    doc = "A rules_cuda toolkit component from pinned, hash-checked wheels.",
)

# ---- from Debian's packages ------------------------------------------------------

def _sources_mirror(text):
    """The first non-security archive URL of an apt sources file (one-line or deb822)."""
    for stanza in text.split("\n\n"):
        if "-security" in stanza:
            continue
        for line in stanza.split("\n"):
            words = line.strip().split(" ")
            if words[0] == "URIs:" and len(words) > 1:
                return [w for w in words[1:] if w][0]
            if words[0] == "deb":
                for w in words[1:]:
                    if "://" in w:
                        return w
    return None

def _debian_mirror(rctx):
    """The Debian mirror apt uses here (CUBRIDGE_MIRROR wins); never written in a file."""
    url = rctx.os.environ.get("CUBRIDGE_MIRROR", "")
    files = [rctx.path("/etc/apt/sources.list")]
    listdir = rctx.path("/etc/apt/sources.list.d")
    if listdir.exists:
        files += sorted([f for f in listdir.readdir() if f.basename.endswith((".list", ".sources"))], key = str)
    for f in files:
        if url:
            break
        if f.exists:
            url = _sources_mirror(rctx.read(f)) or ""
    if not url:
        fail("cubridge: CUDA 12 is Debian's nvidia-cuda-toolkit, but no Debian mirror was found in " +
             "/etc/apt/sources.list{,.d/}; set CUBRIDGE_MIRROR")
    return url.rstrip("/")

def _cuda_deb_component_impl(rctx):
    component = rctx.attr.component
    if not rctx.which("dpkg-deb"):
        fail("cubridge: CUDA 12's {} component is unpacked from Debian packages with dpkg-deb ".format(component) +
             "(tools/bazel's root filesystem has it)")
    mirror = _debian_mirror(rctx)
    for path, spec in rctx.attr.debs.items():
        sha256, mapping = spec.split(" ", 1)
        out = "debs/" + path.rsplit("/", 1)[-1]
        rctx.report_progress("CUDA 12 {}: {}".format(component, out))
        result = rctx.download(url = mirror + "/" + path, output = out, sha256 = sha256, allow_fail = True)
        if not result.success:
            fail(("cubridge: could not fetch {} from the Debian mirror {}: the sid index keeps only its " +
                  "newest version, so it may have moved on. Bump CUDA12_DEBS in " +
                  "toolchains/cuda/private/versions.bzl; outside Debian, point CUBRIDGE_MIRROR at a Debian mirror.").format(path, mirror))

        # mapping: "SRC=DEST SRC=DEST ...", SRC a path in the package, DEST in the component.
        pairs = [m.split("=") for m in mapping.split(" ")]
        rctx.file("_root/.keep", "")
        result = rctx.execute(
            ["bash", "-c", 'set -o pipefail; deb="$1"; shift; dpkg-deb --fsys-tarfile "$deb" | tar -x -f - -C _root "$@"', "unpack", out] +
            ["." + src for src, _ in pairs],
            timeout = 1200,
        )
        if result.return_code != 0:
            fail("cubridge: unpacking {} failed:\n{}".format(out, result.stderr))
        for src, dest in pairs:
            target = "{}/{}".format(component, dest)

            # A directory merges into what other packages put there (three CCCL packages, one include/).
            result = rctx.execute(["bash", "-c", 'if [[ -d "$1" ]]; then mkdir -p "$2" && cp -a "$1/." "$2/"; ' +
                                                 'else mkdir -p "$(dirname "$2")" && cp -a "$1" "$2"; fi', "place", "_root" + src, target])
            if result.return_code != 0:
                fail("cubridge: placing {} failed:\n{}".format(src, result.stderr))
        rctx.delete("_root")
        rctx.delete(out)
    for path, content in rctx.attr.files.items():
        rctx.file("{}/{}".format(component, path), content)
    _finish(rctx, component, rctx.attr.version, "Debian " + " ".join(sorted(rctx.attr.debs.keys())))

cuda_deb_component = repository_rule(
    implementation = _cuda_deb_component_impl,
    attrs = {
        "component": attr.string(mandatory = True),
        "debs": attr.string_dict(
            mandatory = True,
            doc = "Path of each package in the archive (pool/...) -> \"SHA256 SRC=DEST ...\": its sha256, then the " +
                  "paths taken from it (absolute in the package) and where they go in the component.",
        ),
        "files": attr.string_dict(doc = "Files written into the component: path -> content."),
        "version": attr.string(mandatory = True),
    },
    environ = ["CUBRIDGE_MIRROR"],
    doc = "A rules_cuda toolkit component from pinned, sha256-checked Debian packages.",
)

# ---- nothing at all -----------------------------------------------------------------

def _cuda_empty_component_impl(rctx):
    component = rctx.attr.component
    for lib in rctx.attr.static_libraries:
        rctx.file("{}/lib/{}".format(component, lib), "!<arch>\n")  # an ar archive with no member
    rctx.file(component + "/LICENSE", rctx.attr.reason + "\n")
    _finish(rctx, component, rctx.attr.version, "empty: " + rctx.attr.reason)

cuda_empty_component = repository_rule(
    implementation = _cuda_empty_component_impl,
    attrs = {
        "component": attr.string(mandatory = True),
        "reason": attr.string(mandatory = True, doc = "Why it may be empty; becomes its LICENSE text."),
        "static_libraries": attr.string_list(doc = "Empty static archives it holds, e.g. libculibos.a."),
        "version": attr.string(mandatory = True),
    },
    doc = "A component that rules_cuda's BUILD files name but no reachable package ships.",
)
