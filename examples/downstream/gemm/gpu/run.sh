#!/usr/bin/env bash
# GPU host: the gemm example's C++ and Go tests, its Python tests and the benchmark.
# Usage: gpu/run.sh WHEEL CC_TEST GO_TEST OUT_DIR   (from examples/downstream/gemm)
# They are built on the build machine:
#   (cd examples/downstream && ../../tools/bazel build --config=ci //gemm:wheel //gemm:gemm_cc_test //gemm/gemmgo:gemm_go_test)
#   bazel-bin/gemm/mygemm-0.1.0-cp311-abi3-manylinux_2_35_x86_64.whl, bazel-bin/gemm/gemm_cc_test,
#   bazel-bin/gemm/gemmgo/gemm_go_test.test
# The NVIDIA libraries come from the host's site-packages (torch's nvidia-cublas /
# nvidia-curand 13.x): the Python package finds them itself; the C++ test is
# given their directory; the Go test finds them in the documented layout, a
# nvidia/cu13/lib directory beside the binary (its run path), no LD_LIBRARY_PATH.
set -euo pipefail
wheel="$1" cc_test="$2" go_test="$3" out="$4"
mkdir -p "${out}"
pkg="$(mktemp -d)"
python3 -m pip install --no-deps --target "${pkg}" "${wheel}" >/dev/null
libs="$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))')"
echo "== C++ (libraries from ${libs})"
LD_LIBRARY_PATH="${libs}" "${cc_test}" | tee "${out}/gemm_cc_test.log"
echo "== Go (nvidia/cu13/lib beside the binary)"
godir="$(mktemp -d)"
mkdir -p "${godir}/nvidia/cu13"
ln -s "${libs}" "${godir}/nvidia/cu13/lib"
cp "${go_test}" "${godir}/gemm_go_test"
"${godir}/gemm_go_test" -test.v | tee "${out}/gemm_go_test.log"
echo "== Python tests"
# -P: not the working directory on sys.path, where the source package mygemm/
# (without its compiled _gemm) would shadow the installed one.
env -u LD_LIBRARY_PATH PYTHONPATH="${pkg}" python3 -P -m pytest -p no:cacheprovider -q -rs tests/gemm_test.py | tee "${out}/gemm_py_test.log"
echo "== benchmark"
env -u LD_LIBRARY_PATH PYTHONPATH="${pkg}" python3 gpu/bench_gemm.py --out "${out}/bench_gemm.json" | tee "${out}/bench_gemm.log"
