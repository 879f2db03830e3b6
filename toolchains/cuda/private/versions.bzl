"""The pinned CUDA toolkits and libraries (hash-checked), per CUDA major.

CUDA 13.0: wheels of the Python package index, fetched by pip as this machine
configures it. 13.0.x matches the GPU test host's driver (CUDA 13.0); a newer
runtime on an older driver fails at run time. Bump all of these together.
CUDA 12.4: Debian's toolkit packages (below) and the -cu12 library wheels.
"""

CUDA_VERSION = "13.0"

# The toolkit's rules_cuda components and the wheels each comes from:
# component -> [(wheel, version, sha256), ...]. Every cu13 wheel puts its files
# under nvidia/cu13/ (bin/, include/, lib/, nvvm/), the layout of NVIDIA's archive
# of that component. nvcc gets the crt headers too: it compiles the device link's
# stub with them from its own include/, as a full toolkit has them.
_CRT = ("nvidia-cuda-crt", "13.0.88", "2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4")

CUDA_TOOLKIT_WHEELS = {
    "cccl": [("nvidia-cuda-cccl", "13.0.85", "e0da7ad981f3a8aff08241b5bfc1af868742a63e2762f53a5171c492ef242649")],
    "crt": [_CRT],
    "cudart": [("nvidia-cuda-runtime", "13.0.96", "7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548")],
    "nvcc": [("nvidia-cuda-nvcc", "13.0.88", "56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03"), _CRT],
    "nvvm": [("nvidia-nvvm", "13.0.88", "c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0")],
}

# NCCL for the communicators (cuda/include/cubridge/comm.h): headers at build
# time, libnccl.so.2 loaded at run time. 2.28.9 is built against CUDA 13.0
# ("NCCL version 2.28.9+cuda13.0"), so it runs on the GPU hosts' 13.0 driver.
NCCL_WHEEL = ("nvidia-nccl-cu13", "2.28.9", "e4553a30f34195f3fa1da02a6da3d6337d28f2003943aa0a3d247bbc25fefc42")

# Where every cu13 wheel puts its files in site-packages (and in the repositories).
CUDA_WHEEL_PREFIX = "nvidia/cu13"

# ---- Linux aarch64 (--platforms=//platforms:linux_aarch64) --------------------
#
# nvcc, ptxas and cicc run on the build machine: the x86-64 wheels above, whatever
# the target. Everything the target links or includes comes from the aarch64
# ("sbsa": GH200, GB200) wheel of the same version, fetched only when a build
# targets aarch64: "WHEEL==VERSION" of a pin above -> sha256 of its manylinux
# aarch64 wheel. Bump together with the x86-64 pins.
CUDA_EXEC_COMPONENTS = ["nvcc", "nvvm"]

CUDA_AARCH64_SHA256 = {
    "nvidia-cublas==13.1.0.3": "c86fc7f7ae36d7528288c5d88098edcb7b02c633d262e7ddbb86b0ad91be5df2",
    "nvidia-cuda-cccl==13.0.85": "6f0203e29fed809ee2b7fe9b1344df66ecab990c37d6a2e0e189b26d6c97ed7c",
    "nvidia-cuda-crt==13.0.88": "ee2ea2a97073e02ee62bb27841f437332be2c248e3eac013df07997ada39c003",
    "nvidia-cuda-nvrtc==13.0.88": "d27f20a0ca67a4bb34268a5e951033496c5b74870b868bacd046b1b8e0c3267b",
    "nvidia-cuda-runtime==13.0.96": "ef9bcbe90493a2b9d810e43d249adb3d02e98dd30200d86607d8d02687c43f55",
    "nvidia-cufft==12.0.0.61": "2708c852ef8cd89d1d2068bdbece0aa188813a0c934db3779b9b1faa8442e5f5",
    "nvidia-curand==10.4.0.35": "133df5a7509c3e292aaa2b477afd0194f06ce4ea24d714d616ff36439cee349a",
    "nvidia-cusolver==12.0.4.66": "02c2457eaa9e39de20f880f4bd8820e6a1cfb9f9a34f820eb12a155aa5bc92d2",
    "nvidia-cusparse==12.6.3.3": "80bcc4662f23f1054ee334a15c72b8940402975e0eab63178fc7e670aa59472c",
    "nvidia-nccl-cu13==2.28.9": "01c873ba1626b54caa12272ed228dc5b2781545e0ae8ba3f432a8ef1c6d78643",
    "nvidia-nvjitlink==13.0.88": "e931536ccc7d467a98ba1d8b89ff7fa7f1fa3b13f2b0069118cd7f47bff07d0c",
    "nvidia-nvtx==13.0.85": "cb7780edb6b14107373c835bf8b72e7a178bac7367e23da7acb108f973f157a6",
}

# The manylinux tags pip may pick an aarch64 wheel under (the hashes decide which).
AARCH64_WHEEL_PLATFORMS = [
    "manylinux2014_aarch64",
    "manylinux_2_17_aarch64",
    "manylinux_2_18_aarch64",
    "manylinux_2_27_aarch64",
    "manylinux_2_28_aarch64",
]

# ---- CUDA 12 (--repo_env=CUBRIDGE_CUDA_TOOLKIT=12) ---------------------------
#
# The package index has no CUDA 12 nvcc (nvidia-cuda-nvcc-cu12 carries ptxas
# only), so the compiler is Debian's non-free nvidia-cuda-toolkit 12.4 (sid),
# fetched as pinned .deb files from this machine's Debian mirror (the URL read
# from apt's sources, never written here) and checked against these sha256.
# Only the files nvcc needs are unpacked (toolkit: nvcc, cicc, ptxas, ...;
# nvidia-cuda-dev: headers, libcudart_static.a, libcudadevrt.a; CCCL 2.5.0, the
# CUB/Thrust/libcu++ Debian builds its 12.4 toolkit with). The sid index keeps
# only its newest version: when these leave the mirror, the fetch fails naming
# the package (Bazel's repository cache keeps the files it already has).
CUDA12_VERSION = "12.4"

_TOOLKIT_DEB = "pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_12.4.131~12.4.1-8.2+b1_amd64.deb"
_TOOLKIT_DEB_SHA256 = "04563e129c3b422f5bdcc73cfff2e2a20e286f327b48d808051ada7c0aeb3f7c"
_DEV_DEB = "pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-dev_12.4.127~12.4.1-8.2+b1_amd64.deb"  # 934 MB
_DEV_DEB_SHA256 = "e883a2cfd12017b687bacc31c54ca8c54a2c81a0bd087a2d7db3781129414de5"

# CCCL 2.5.0: three header-only packages of one Debian source.
_CCCL_DEBS = {
    "pool/main/c/cccl/libcu++-dev_2.5.0-1_all.deb": "0e9c017ca733e9ae768937354fccce2356d359e78948a250813517fcff2a46f0",
    "pool/main/c/cccl/libcub-dev_2.5.0-1_all.deb": "3eda29bbace0ee5fc4d4b55bcdd3579cd8b4f04d00a87d45173f4960f607d3be",
    "pool/main/c/cccl/libthrust-dev_2.5.0-1_all.deb": "19dd83a2fb13b1f71b092d99f5c83555b64fa2dae91c6627eed7ad84d7858a30",
}

# Debian's nvcc, laid out as NVIDIA's nvcc archive: cicc and libdevice in nvvm/.
_NVCC12_PROFILE = """\
# Written by cubridge: Debian's nvcc 12.4, laid out as NVIDIA's nvcc archive.
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
"""

def _taken(pairs):
    return " ".join(["{}={}".format(src, dest) for src, dest in pairs])

# component -> struct(debs = {pool path: "SHA256 SRC=DEST ..."}, files = {...}):
# what cuda_deb_component takes from each package. All the toolkit's headers sit
# in the nvcc component (rules_cuda adds nvcc's headers to every cudart user).
CUDA12_TOOLKIT_DEBS = {
    "cccl": struct(
        debs = {
            path: sha256 + " " + _taken([("/usr/include", "include")] + (
                [("/usr/share/doc/libcub-dev/copyright", "LICENSE")] if "libcub-dev" in path else []
            ))
            for path, sha256 in _CCCL_DEBS.items()
        },
        files = {},
    ),
    "cudart": struct(
        debs = {_DEV_DEB: _DEV_DEB_SHA256 + " " + _taken([
            ("/usr/lib/x86_64-linux-gnu/" + lib, "lib/" + lib)
            for lib in ["libcudart_static.a", "libcudadevrt.a", "libculibos.a"]
        ] + [("/usr/share/doc/nvidia-cuda-dev/copyright", "LICENSE")])},
        files = {},
    ),
    "nvcc": struct(
        debs = {
            _DEV_DEB: _DEV_DEB_SHA256 + " " + _taken([("/usr/include", "include")]),
            _TOOLKIT_DEB: _TOOLKIT_DEB_SHA256 + " " + _taken([
                ("/usr/bin/" + tool, "bin/" + tool)
                for tool in ["bin2c", "cu++filt", "cudafe++", "cuobjdump", "fatbinary", "nvdisasm", "nvlink", "nvprune", "ptxas"]
            ] + [
                ("/usr/lib/nvidia-cuda-toolkit/bin/nvcc", "bin/nvcc"),
                ("/usr/lib/nvidia-cuda-toolkit/bin/crt", "bin/crt"),
                ("/usr/lib/nvidia-cuda-toolkit/bin/cicc", "nvvm/bin/cicc"),
                ("/usr/lib/nvidia-cuda-toolkit/libdevice", "nvvm/libdevice"),
                ("/usr/share/doc/nvidia-cuda-toolkit/copyright", "LICENSE"),
            ]),
        },
        files = {"bin/nvcc.profile": _NVCC12_PROFILE},
    ),
}

# NCCL built for CUDA 12 (libnccl.so.2 loaded at run time, as for CUDA 13).
NCCL12_WHEEL = ("nvidia-nccl-cu12", "2.28.9", "485776daa8447da5da39681af455aa3b2c2586ddcf4af8772495e7c532c7e5ab")

# ---- The CUDA libraries, for both majors ------------------------------------

# The CUDA libraries. Each becomes a repository per CUDA major, @cuda_<name> and
# @cuda12_<name> (fetched only when a target needs it), and the target
# @cubridge//toolchains/cuda:<name>.
#   wheel: the CUDA 13 wheel's name; the CUDA 12 one adds -cu12;
#   cu13: (version, sha256) of the CUDA 13 wheel, the version that the
#     cuda-toolkit 13.0.2 metapackage names (the toolkit above);
#   cu12: the same for the -cu12 wheel of the cuda-toolkit 12.4.1 set (the
#     versions Debian's 12.4 toolkit ships too);
#   libs: the shared libraries the target links (lib<name>.so.<major>);
#   runtime: files loaded at run time only (dlopen), kept beside the libraries;
#     {cuda} stands for the CUDA version (13.0, 12.4);
#   deps: other entries of this table it needs.
def _library(wheel, cu13, cu12, libs, runtime = [], deps = []):
    return struct(wheel = wheel, cu13 = cu13, cu12 = cu12, libs = libs, runtime = runtime, deps = deps)

_LIBRARIES = {
    "cublas": _library(
        "nvidia-cublas",
        cu13 = ("13.1.0.3", "ee8722c1f0145ab246bccb9e452153b5e0515fd094c3678df50b2a0888b8b171"),
        cu12 = ("12.4.5.8", "2fc8da60df463fdefa81e323eef2e36489e1c94335b5358bcb38360adf75ac9b"),
        libs = ["cublas", "cublasLt"],
    ),
    "cufft": _library(
        "nvidia-cufft",
        cu13 = ("12.0.0.61", "6c44f692dce8fd5ffd3e3df134b6cdb9c2f72d99cf40b62c32dde45eea9ddad3"),
        cu12 = ("11.2.1.3", "f083fc24912aa410be21fa16d157fed2055dab1cc4b6934a0e03cba69eb242b9"),
        libs = ["cufft"],
        deps = ["nvjitlink"],
    ),
    "curand": _library(
        "nvidia-curand",
        cu13 = ("10.4.0.35", "1aee33a5da6e1db083fe2b90082def8915f30f3248d5896bcec36a579d941bfc"),
        cu12 = ("10.3.5.147", "a88f583d4e0bb643c49743469964103aa59f7f708d862c3ddb0fc07f851e3b8b"),
        libs = ["curand"],
    ),
    "cusolver": _library(
        "nvidia-cusolver",
        cu13 = ("12.0.4.66", "0a759da5dea5c0ea10fd307de75cdeb59e7ea4fcb8add0924859b944babf1112"),
        cu12 = ("11.6.1.9", "19e33fa442bcfd085b3086c4ebf7e8debc07cfe01e11513cc6d332fd918ac260"),
        libs = ["cusolver"],
        deps = ["cublas", "cusparse", "nvjitlink"],
    ),
    "cusparse": _library(
        "nvidia-cusparse",
        cu13 = ("12.6.3.3", "2b3c89c88d01ee0e477cb7f82ef60a11a4bcd57b6b87c33f789350b59759360b"),
        cu12 = ("12.3.1.170", "ea4f11a2904e2a8dc4b1833cc1b5181cde564edd0d5cd33e3c168eff2d1863f1"),
        libs = ["cusparse"],
        deps = ["nvjitlink"],
    ),
    "nvjitlink": _library(
        "nvidia-nvjitlink",
        cu13 = ("13.0.88", "13a74f429e23b921c1109976abefacc69835f2f433ebd323d3946e11d804e47b"),
        cu12 = ("12.4.127", "06b3b9b25bf3f8af351d664978ca26a16d2c5127dbd53c0497e28d1fb9611d57"),
        libs = ["nvJitLink"],
    ),
    "nvrtc": _library(
        "nvidia-cuda-nvrtc",
        cu13 = ("13.0.88", "ad9b6d2ead2435f11cbb6868809d2adeeee302e9bb94bcf0539c7a40d80e8575"),
        cu12 = ("12.4.127", "a178759ebb095827bd30ef56598ec182b85547f1508941a3d560eb7ea1fbf338"),
        libs = ["nvrtc"],
        runtime = ["libnvrtc-builtins.so.{cuda}"],
    ),
    # NVTX 3 is header-only (nvtx3/nvToolsExt.h); its library finds a tool at run time.
    "nvtx": _library(
        "nvidia-nvtx",
        cu13 = ("13.0.85", "4936d1d6780fbe68db454f5e72a42ff64d1fd6397df9f363ae786930fd5c1cd4"),
        cu12 = ("12.4.127", "781e950d9b9f60d8241ccea575b32f5105a5baf4c2351cab5256a24869f12a1a"),
        libs = [],
    ),
}

def _for_cuda(cuda_major):
    """_LIBRARIES for one CUDA major: name -> struct(wheel, version, sha256, prefix, libs, runtime, deps).

    prefix: where the wheel puts its files in site-packages (and in the
    repositories): nvidia/cu13 for every cu13 wheel; each -cu12 wheel has its
    own, named after it (nvidia/cublas, nvidia/cuda_nvrtc, ...).
    """
    table = {}
    for name, lib in _LIBRARIES.items():
        if cuda_major == "12":
            wheel = lib.wheel + "-cu12"
            (version, sha256) = lib.cu12
            prefix = "nvidia/" + lib.wheel.removeprefix("nvidia-").replace("-", "_")
            cuda = CUDA12_VERSION
        else:
            wheel = lib.wheel
            (version, sha256) = lib.cu13
            prefix = CUDA_WHEEL_PREFIX
            cuda = CUDA_VERSION
        table[name] = struct(
            wheel = wheel,
            version = version,
            sha256 = sha256,
            prefix = prefix,
            libs = lib.libs,
            runtime = [f.format(cuda = cuda) for f in lib.runtime],
            deps = lib.deps,
        )
    return table

CUDA_LIBRARIES = _for_cuda("13")
CUDA12_LIBRARIES = _for_cuda("12")
