#!/usr/bin/env bash
# Runs the carried test binaries and the wheel's tests on the GPU host (no Bazel,
# Go or network there). Usage, from the repository root on that host:
#   tests/gpu/run_all.sh ARTIFACTS_DIR OUT_DIR
# ARTIFACTS_DIR holds what tests/gpu/collect.sh gathered here; every log goes to OUT_DIR.
# BENCH=1 also runs bench/bench.py and the Go benchmark (results in OUT_DIR).
set -uo pipefail
art="$(cd "$1" && pwd)"
out="$2"
mkdir -p "${out}"
repo="$(pwd)"
export CUBRIDGE_VECTORS_DIR="${repo}/tests/vectors"
pass=0
fail=0
step() { # step NAME COMMAND...: run, log, count
  local name="$1"
  shift
  echo "=== ${name}"
  timeout "${STEP_TIMEOUT:-300}" "$@" >"${out}/${name}.log" 2>&1
  local rc=$?
  if [[ ${rc} -eq 0 ]]; then
    pass=$((pass + 1))
    echo "PASS ${name}"
  else
    fail=$((fail + 1))
    echo "FAIL ${name} (exit ${rc})"
  fi
  tail -n 4 "${out}/${name}.log"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step cuda_smoke "${art}/smoke_test"
step cxx_cuda env CUBRIDGE_BACKEND=cuda "${art}/cubridge_test"
step cxx_cpu env CUBRIDGE_BACKEND=cpu "${art}/cubridge_test"
step go_info env CUBRIDGE_BACKEND=cuda "${art}/cubridge-info"
(cd go/cubridge && step go_cuda env CUBRIDGE_BACKEND=cuda "${art}/cubridge_test.test" -test.v)
(cd go/cubridge && step go_race_cuda env CUBRIDGE_BACKEND=cuda "${art}/cubridge_race_test.test")
(cd go/cubridge && step go_bench env CUBRIDGE_BACKEND=cuda "${art}/cubridge_test.test" -test.run '^$' -test.bench . -test.benchtime 2000x)
pkg="$(mktemp -d)"
python3 -m pip install --no-deps --no-index --target "${pkg}" "${art}"/cubridge-*.whl >"${out}/pip.log" 2>&1
step py_cuda env CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}" python3 -m pytest -p no:cacheprovider -q -rs python/tests
step py_cpu env CUBRIDGE_BACKEND=cpu PYTHONPATH="${pkg}" python3 -m pytest -p no:cacheprovider -q -rs python/tests
step py_smoke env PYTHONPATH="${pkg}" python3 python/tests/gpu_smoke.py
if [[ "${BENCH:-0}" == 1 ]]; then
  step bench_py env PYTHONPATH="${pkg}" python3 bench/bench.py --out "${out}"
  step bench_go "${art}/gobench" -out "${out}/gobench.json"
fi
echo "gpu host: ${pass} passed, ${fail} failed"
