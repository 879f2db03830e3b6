#!/usr/bin/env bash
# GPU host: the bound examples (saxpy, quantize, gemm) from C++, Go and Python on the
# CUDA backend (torch, CuPy and JAX arrays where installed, a producer on a side
# stream), Python on the CPU backend too, and the GEMM benchmark beside torch and CuPy.
# Usage, from examples/downstream: gpu/run.sh ARTIFACTS_DIR OUT_DIR
# ARTIFACTS_DIR: what gpu/collect.sh packed here. cuBLAS / cuRAND come from the
# host's site-packages (torch's nvidia-cublas / nvidia-curand 13.x): mygemm finds
# them itself; the C++ test is given their directory; the Go test finds them in
# the documented layout, nvidia/cu13/lib beside the binary (its run path).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../tests/gpu/steps.sh"
gpu_setup "$1" "$2" # art, out; cubridge's wheel installed into pkg
python3 -m pip install --no-deps --no-index --target "${pkg}" "${art}"/my*.whl >>"${out}/pip.log" 2>&1
limit="${STEP_TIMEOUT:-300}"
libs="$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))')"
godir="$(mktemp -d)"
mkdir -p "${godir}/nvidia/cu13"
ln -s "${libs}" "${godir}/nvidia/cu13/lib"
cp "${art}/gemmgo_test" "${godir}/"

step saxpy_cxx "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/saxpy_vectors_test" testdata/saxpy.txt
step saxpy_go "${limit}" env -C saxpy CUBRIDGE_BACKEND=cuda "${art}/saxpy_test" -test.v
step quantize_cxx "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/quantize_vectors_test" testdata/quantize.txt
step quantize_go "${limit}" env -C quantize CUBRIDGE_BACKEND=cuda "${art}/quantize_test" -test.v
step gemm_cxx "${limit}" env LD_LIBRARY_PATH="${libs}" CUBRIDGE_BACKEND=cuda "${art}/gemm_cc_test" testdata/matmul.txt
# The Go test reads ../../testdata/matmul.txt from its package directory.
step gemm_go "${limit}" env -C gemm/gemmgo CUBRIDGE_BACKEND=cuda "${godir}/gemmgo_test" -test.v
# -P: not the working directory on sys.path; testdata/ for the vectors' reader.
tests=(saxpy/tests/saxpy_test.py quantize/tests/quantize_test.py gemm/tests/gemm_test.py)
step py_cuda "${limit}" env -u LD_LIBRARY_PATH CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}:$(pwd)/testdata" \
  python3 -P -m pytest -p no:cacheprovider -q -rs "${tests[@]}"
step py_cpu "${limit}" env -u LD_LIBRARY_PATH CUBRIDGE_BACKEND=cpu PYTHONPATH="${pkg}:$(pwd)/testdata" \
  python3 -P -m pytest -p no:cacheprovider -q -rs "${tests[@]}"
step bench_gemm "${limit}" env -u LD_LIBRARY_PATH PYTHONPATH="${pkg}" python3 gemm/gpu/bench_gemm.py --out "${out}/bench_gemm.json"
echo "downstream on the gpu host: ${pass} passed, ${fail} failed"
