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
