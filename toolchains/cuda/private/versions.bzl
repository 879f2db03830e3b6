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
