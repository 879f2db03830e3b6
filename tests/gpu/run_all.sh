#!/usr/bin/env bash
# Runs the carried test binaries and the wheel's tests on the GPU host (no Bazel,
# Go or network there). Usage, from the repository root on that host:
#   tests/gpu/run_all.sh ARTIFACTS_DIR OUT_DIR
# ARTIFACTS_DIR holds what tests/gpu/collect.sh gathered here; every log goes to OUT_DIR.
# BENCH=1 also runs bench/bench.py (CUDA, then the CPU backend on two cores), the
# Go benchmark and bench/bind_bench.py (a kernel bound by kernel_binding beside
# cubridge's ops and CuPy's kernels; results in OUT_DIR).
# A CUDA 12 bundle (BUILD_FLAGS="--config=ci --config=cuda12"
# tests/gpu/collect.sh DIR) runs the same steps; cuda_version checks that the wheel's
# name (cubridge_cu12 / cubridge_cu13), the library and the driver agree.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
gpu_setup "$1" "$2"
limit="${STEP_TIMEOUT:-300}"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step cuda_smoke "${limit}" "${art}/smoke_test"
step cxx_cuda "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/cubridge_test"
step cxx_cpu "${limit}" env CUBRIDGE_BACKEND=cpu "${art}/cubridge_test"
step go_info "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/cubridge-info"
step go_cuda "${limit}" env -C go/cubridge CUBRIDGE_BACKEND=cuda "${art}/cubridge_test.test" -test.v
step go_race_cuda "${limit}" env -C go/cubridge CUBRIDGE_BACKEND=cuda "${art}/cubridge_race_test.test"
step go_bench "${limit}" env -C go/cubridge CUBRIDGE_BACKEND=cuda "${art}/cubridge_test.test" -test.run '^$' -test.bench . -test.benchtime 2000x
step py_cuda "${limit}" env CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}" python3 -m pytest -p no:cacheprovider -q -rs python/tests
step py_cpu "${limit}" env CUBRIDGE_BACKEND=cpu PYTHONPATH="${pkg}" python3 -m pytest -p no:cacheprovider -q -rs python/tests
step py_smoke "${limit}" env PYTHONPATH="${pkg}" python3 python/tests/gpu_smoke.py
# Your own kernels (kernel_binding's demo, toolchains/bind/tests) from C++, Go and Python.
step bind_cxx "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/demo_contract_test"
step bind_go_cuda "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/bind_demo_test.test" -test.v
step bind_py_cuda "${limit}" env CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}:${art}/bind" python3 -m pytest -p no:cacheprovider -q -rs toolchains/bind/tests/demo_test.py
step bind_py_cpu "${limit}" env CUBRIDGE_BACKEND=cpu PYTHONPATH="${pkg}:${art}/bind" python3 -m pytest -p no:cacheprovider -q -rs toolchains/bind/tests/demo_test.py
wheels=("${art}"/cubridge_cu*-*.whl)
wheel_name="$(basename "${wheels[0]}")"
step cuda_version "${limit}" env CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}" WHEEL="${wheel_name}" python3 -c '
import os, cubridge
major = int(os.environ["WHEEL"].split("-")[0].rsplit("_cu", 1)[1])
built, driver = cubridge.cuda_version(), cubridge.driver_version()
print("wheel", os.environ["WHEEL"], "built with CUDA", built, "driver supports", driver, "backend", cubridge.backend())
assert built[0] == major, (built, major)
assert driver[0] >= major, driver
assert cubridge.backend() == "cuda"
assert float(cubridge.sum(cubridge.full(1000, 2.0, dtype="float32"))) == 2000.0
'
step go_cuda_version "${limit}" env -C go/cubridge CUBRIDGE_BACKEND=cuda "${art}/cubridge_test.test" -test.run '^TestCUDAVersion$' -test.v
if [[ "${BENCH:-0}" == 1 ]]; then
  step bench_py "${limit}" env PYTHONPATH="${pkg}" python3 bench/bench.py --out "${out}"
  step bench_go "${limit}" "${art}/gobench" -out "${out}/gobench.json"
  step bench_cxx "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/cubridge_bench"
  step bench_bind "${limit}" env CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}:${art}/bind" \
    python3 bench/bind_bench.py --out "${out}/bind_bench.json"
  # The CPU backend beside NumPy on two cores (taskset), as on the build
  # machines: the issue's "CPU backend (2 cores, idle)" rows, on an idle host.
  step bench_cpu "${limit}" env CUBRIDGE_BACKEND=cpu PYTHONPATH="${pkg}" taskset -c 0,1 \
    python3 bench/bench.py --libs cubridge,numpy --out "${out}/cpu"
fi
echo "gpu host: ${pass} passed, ${fail} failed"
