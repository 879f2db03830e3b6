"""GPU architectures: parsed once, in the build setting --@cubridge//toolchains/cuda:archs.

cuda_archs_flag is that setting's rule: it checks every name when the flag is
set (a typo fails the build at once, naming the flag) and hands cuda_library and
cuda_device_link the parsed list through CudaArchsInfo. A cuda_library's own
`archs` attribute goes through the same parse_archs.
"""

CudaArchsInfo = provider(
    doc = "Parsed GPU archs of --@cubridge//toolchains/cuda:archs.",
    fields = {
        "archs": "list of arch names in nvcc's vocabulary (sm_90, sm_90a, compute_90), checked, once each",
        "gencode": "nvcc -gencode flags for all of them",
        "real": "list of (sm_XX[a], compute_XX[a]) pairs, one per SASS arch (for cubins)",
        "virtual": "compute_XX for every arch (sm_90a -> compute_90a), once each (for PTX)",
    },
)

_DIGITS = "0123456789"

def _arch_number(arch, prefix):
    """"sm_90a" -> "90a"; fails unless the rest is digits and an optional a/f suffix."""
    num = arch[len(prefix):]
    digits = num[:-1] if num and num[-1] in "af" else num
    if not digits or [c for c in digits.elems() if c not in _DIGITS]:
        fail("cubridge: unknown CUDA arch '{}': use sm_XX, sm_XXa or compute_XX".format(arch))
    return num

def _parse_arch(arch):
    """("sm"|"compute", number) for an arch in nvcc's vocabulary."""
    for kind in ["sm", "compute"]:
        if arch.startswith(kind + "_"):
            return kind, _arch_number(arch, kind + "_")
    fail("cubridge: unknown CUDA arch '{}': use sm_XX, sm_XXa or compute_XX".format(arch))

def gencode_flags(archs):
    """nvcc -gencode flags for GPU architectures.

    Args:
      archs: arch names in nvcc's vocabulary: sm_90, sm_90a (SASS), compute_90 (PTX).

    Returns:
      A list of -gencode=arch=...,code=... flags, one per arch.
    """
    flags = []
    for arch in archs:
        kind, num = _parse_arch(arch)
        if kind == "sm":
            flags.append("-gencode=arch=compute_{0},code=sm_{0}".format(num))
        else:
            flags.append("-gencode=arch=compute_{0},code=compute_{0}".format(num))
    return flags

def _virtual_archs(archs):
    """compute_XX for every arch (sm_90a -> compute_90a), in order, once each."""
    out = []
    for arch in archs:
        _, num = _parse_arch(arch)
        if "compute_" + num not in out:
            out.append("compute_" + num)
    return out

def parse_archs(archs):
    """Checks arch names (fails naming the bad one) and derives what nvcc needs.

    Args:
      archs: arch names: sm_90, sm_90a (SASS), compute_90 (PTX).

    Returns:
      CudaArchsInfo.
    """
    out = []
    for arch in archs:
        _parse_arch(arch)
        if arch not in out:
            out.append(arch)
    if not out:
        fail("cubridge: no CUDA archs given (e.g. --@cubridge//toolchains/cuda:archs=sm_90)")
    real = []
    for arch in out:
        kind, num = _parse_arch(arch)
        if kind == "sm":
            real.append((arch, "compute_" + num))
    return CudaArchsInfo(archs = out, gencode = gencode_flags(out), real = real, virtual = _virtual_archs(out))

def _cuda_archs_flag_impl(ctx):
    return [parse_archs(ctx.build_setting_value)]

cuda_archs_flag = rule(
    implementation = _cuda_archs_flag_impl,
    build_setting = config.string_list(flag = True, repeatable = False),
    doc = "A list of GPU archs, checked once when set.",
)
