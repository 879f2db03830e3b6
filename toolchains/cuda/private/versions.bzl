"""Pinned CUDA 13.0 wheels from the Python package index (hash-checked by pip).

13.0.x matches the GPU test host's driver (CUDA 13.0); a newer runtime on an
older driver fails at run time. Bump all of these together.
"""

CUDA_VERSION = "13.0"

CUDA_WHEELS = {
    "nvidia-cuda-cccl": ("13.0.85", "e0da7ad981f3a8aff08241b5bfc1af868742a63e2762f53a5171c492ef242649"),
    "nvidia-cuda-crt": ("13.0.88", "2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4"),
    "nvidia-cuda-nvcc": ("13.0.88", "56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03"),
    "nvidia-cuda-runtime": ("13.0.96", "7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548"),
    "nvidia-nvvm": ("13.0.88", "c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0"),
}

# Host compilers nvcc 13.0 accepts, best first (Debian sid's default gcc 16 is too new).
HOST_COMPILERS = ["g++-14", "g++-13", "g++-12", "g++-15", "g++"]

# NCCL for the communicators (cuda/include/cubridge/comm.h): headers at build
# time, libnccl.so.2 loaded at run time. 2.28.9 is built against CUDA 13.0
# ("NCCL version 2.28.9+cuda13.0"), so it runs on the GPU hosts' 13.0 driver.
NCCL_WHEEL = ("nvidia-nccl-cu13", "2.28.9", "e4553a30f34195f3fa1da02a6da3d6337d28f2003943aa0a3d247bbc25fefc42")

# The CUDA libraries, one pinned wheel each, the versions that the cuda-toolkit
# 13.0.2 metapackage names (the toolkit above). Each becomes a repository
# @cuda_<name> (fetched only when a target needs it) and the target
# @cubridge//toolchains/cuda:<name>.
#   libs: the shared libraries the target links (lib<name>.so.<major>);
#   runtime: files loaded at run time only (dlopen), kept beside the libraries;
#   deps: other entries of this table it needs.
CUDA_LIBRARIES = {
    "cublas": struct(
        wheel = "nvidia-cublas",
        version = "13.1.0.3",
        sha256 = "ee8722c1f0145ab246bccb9e452153b5e0515fd094c3678df50b2a0888b8b171",
        libs = ["cublas", "cublasLt"],
        runtime = [],
        deps = [],
    ),
    "cufft": struct(
        wheel = "nvidia-cufft",
        version = "12.0.0.61",
        sha256 = "6c44f692dce8fd5ffd3e3df134b6cdb9c2f72d99cf40b62c32dde45eea9ddad3",
        libs = ["cufft"],
        runtime = [],
        deps = ["nvjitlink"],
    ),
    "curand": struct(
        wheel = "nvidia-curand",
        version = "10.4.0.35",
        sha256 = "1aee33a5da6e1db083fe2b90082def8915f30f3248d5896bcec36a579d941bfc",
        libs = ["curand"],
        runtime = [],
        deps = [],
    ),
    "cusolver": struct(
        wheel = "nvidia-cusolver",
        version = "12.0.4.66",
        sha256 = "0a759da5dea5c0ea10fd307de75cdeb59e7ea4fcb8add0924859b944babf1112",
        libs = ["cusolver"],
        runtime = [],
        deps = ["cublas", "cusparse", "nvjitlink"],
    ),
    "cusparse": struct(
        wheel = "nvidia-cusparse",
        version = "12.6.3.3",
        sha256 = "2b3c89c88d01ee0e477cb7f82ef60a11a4bcd57b6b87c33f789350b59759360b",
        libs = ["cusparse"],
        runtime = [],
        deps = ["nvjitlink"],
    ),
    "nvjitlink": struct(
        wheel = "nvidia-nvjitlink",
        version = "13.0.88",
        sha256 = "13a74f429e23b921c1109976abefacc69835f2f433ebd323d3946e11d804e47b",
        libs = ["nvJitLink"],
        runtime = [],
        deps = [],
    ),
    "nvrtc": struct(
        wheel = "nvidia-cuda-nvrtc",
        version = "13.0.88",
        sha256 = "ad9b6d2ead2435f11cbb6868809d2adeeee302e9bb94bcf0539c7a40d80e8575",
        libs = ["nvrtc"],
        runtime = ["libnvrtc-builtins.so.13.0"],
        deps = [],
    ),
    # NVTX 3 is header-only (nvtx3/nvToolsExt.h); its library finds a tool at run time.
    "nvtx": struct(
        wheel = "nvidia-nvtx",
        version = "13.0.85",
        sha256 = "4936d1d6780fbe68db454f5e72a42ff64d1fd6397df9f363ae786930fd5c1cd4",
        libs = [],
        runtime = [],
        deps = [],
    ),
}

# Where every cu13 wheel puts its files in site-packages (and in the repositories).
CUDA_WHEEL_PREFIX = "nvidia/cu13"

# ---- CUDA 12 (--@cubridge//toolchains/cuda:version=12) ----------------------
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

CUDA12_DEBS = [
    struct(
        package = "nvidia-cuda-toolkit",
        version = "12.4.131~12.4.1-8.2+b1",
        path = "pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_12.4.131~12.4.1-8.2+b1_amd64.deb",
        sha256 = "04563e129c3b422f5bdcc73cfff2e2a20e286f327b48d808051ada7c0aeb3f7c",
        size_mb = 87,
        members = ["./usr/bin", "./usr/lib/nvidia-cuda-toolkit/bin", "./usr/lib/nvidia-cuda-toolkit/libdevice"],
    ),
    struct(
        package = "nvidia-cuda-dev",
        version = "12.4.127~12.4.1-8.2+b1",
        path = "pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-dev_12.4.127~12.4.1-8.2+b1_amd64.deb",
        sha256 = "e883a2cfd12017b687bacc31c54ca8c54a2c81a0bd087a2d7db3781129414de5",
        size_mb = 934,
        members = [
            "./usr/include",
            "./usr/lib/x86_64-linux-gnu/libcudart_static.a",
            "./usr/lib/x86_64-linux-gnu/libcudadevrt.a",
        ],
    ),
    struct(
        package = "libcu++-dev",
        version = "2.5.0-1",
        path = "pool/main/c/cccl/libcu++-dev_2.5.0-1_all.deb",
        sha256 = "0e9c017ca733e9ae768937354fccce2356d359e78948a250813517fcff2a46f0",
        size_mb = 1,
        members = ["./usr/include"],
    ),
    struct(
        package = "libcub-dev",
        version = "2.5.0-1",
        path = "pool/main/c/cccl/libcub-dev_2.5.0-1_all.deb",
        sha256 = "3eda29bbace0ee5fc4d4b55bcdd3579cd8b4f04d00a87d45173f4960f607d3be",
        size_mb = 1,
        members = ["./usr/include"],
    ),
    struct(
        package = "libthrust-dev",
        version = "2.5.0-1",
        path = "pool/main/c/cccl/libthrust-dev_2.5.0-1_all.deb",
        sha256 = "19dd83a2fb13b1f71b092d99f5c83555b64fa2dae91c6627eed7ad84d7858a30",
        size_mb = 1,
        members = ["./usr/include"],
    ),
]

# nvcc 12.4 accepts gcc <= 13 (tools/bazel's rootfs has g++-13 for it).
CUDA12_HOST_COMPILERS = ["g++-13", "g++-12", "g++-11"]

# NCCL built for CUDA 12 (libnccl.so.2 loaded at run time, as for CUDA 13).
NCCL12_WHEEL = ("nvidia-nccl-cu12", "2.28.9", "485776daa8447da5da39681af455aa3b2c2586ddcf4af8772495e7c532c7e5ab")

# The CUDA 12 libraries: the -cu12 wheels of the cuda-toolkit 12.4.1 set (the
# versions Debian's 12.4 toolkit ships too). Unlike cu13, each wheel has its own
# directory in site-packages (`prefix`: nvidia/cublas/lib, nvidia/cufft/lib, ...).
CUDA12_LIBRARIES = {
    "cublas": struct(
        wheel = "nvidia-cublas-cu12",
        version = "12.4.5.8",
        sha256 = "2fc8da60df463fdefa81e323eef2e36489e1c94335b5358bcb38360adf75ac9b",
        prefix = "nvidia/cublas",
        libs = ["cublas", "cublasLt"],
        runtime = [],
        deps = [],
    ),
    "cufft": struct(
        wheel = "nvidia-cufft-cu12",
        version = "11.2.1.3",
        sha256 = "f083fc24912aa410be21fa16d157fed2055dab1cc4b6934a0e03cba69eb242b9",
        prefix = "nvidia/cufft",
        libs = ["cufft"],
        runtime = [],
        deps = ["nvjitlink"],
    ),
    "curand": struct(
        wheel = "nvidia-curand-cu12",
        version = "10.3.5.147",
        sha256 = "a88f583d4e0bb643c49743469964103aa59f7f708d862c3ddb0fc07f851e3b8b",
        prefix = "nvidia/curand",
        libs = ["curand"],
        runtime = [],
        deps = [],
    ),
    "cusolver": struct(
        wheel = "nvidia-cusolver-cu12",
        version = "11.6.1.9",
        sha256 = "19e33fa442bcfd085b3086c4ebf7e8debc07cfe01e11513cc6d332fd918ac260",
        prefix = "nvidia/cusolver",
        libs = ["cusolver"],
        runtime = [],
        deps = ["cublas", "cusparse", "nvjitlink"],
    ),
    "cusparse": struct(
        wheel = "nvidia-cusparse-cu12",
        version = "12.3.1.170",
        sha256 = "ea4f11a2904e2a8dc4b1833cc1b5181cde564edd0d5cd33e3c168eff2d1863f1",
        prefix = "nvidia/cusparse",
        libs = ["cusparse"],
        runtime = [],
        deps = ["nvjitlink"],
    ),
    "nvjitlink": struct(
        wheel = "nvidia-nvjitlink-cu12",
        version = "12.4.127",
        sha256 = "06b3b9b25bf3f8af351d664978ca26a16d2c5127dbd53c0497e28d1fb9611d57",
        prefix = "nvidia/nvjitlink",
        libs = ["nvJitLink"],
        runtime = [],
        deps = [],
    ),
    "nvrtc": struct(
        wheel = "nvidia-cuda-nvrtc-cu12",
        version = "12.4.127",
        sha256 = "a178759ebb095827bd30ef56598ec182b85547f1508941a3d560eb7ea1fbf338",
        prefix = "nvidia/cuda_nvrtc",
        libs = ["nvrtc"],
        runtime = ["libnvrtc-builtins.so.12.4"],
        deps = [],
    ),
    "nvtx": struct(
        wheel = "nvidia-nvtx-cu12",
        version = "12.4.127",
        sha256 = "781e950d9b9f60d8241ccea575b32f5105a5baf4c2351cab5256a24869f12a1a",
        prefix = "nvidia/nvtx",
        libs = [],
        runtime = [],
        deps = [],
    ),
}
