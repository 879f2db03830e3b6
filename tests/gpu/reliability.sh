#!/usr/bin/env bash
# The reliability runs that need the GPU host (no Bazel, Go or network there).
# From the repository root on that host, after tests/gpu/collect.sh's bundle is
# unpacked into ARTIFACTS_DIR:
#   tests/gpu/reliability.sh ARTIFACTS_DIR OUT_DIR
# Steps: compute-sanitizer (tests/gpu/sanitize.sh), device-memory drift after
# 1000 alloc/op/free rounds from Python (tests/gpu/memory_drift.py) and from Go
# (TestSoak), GPU fault tests (python/tests/test_gpu_faults.py), load from
# Python threads and Go goroutines for 20 s each, and a longer Hypothesis run.
# Every log goes to OUT_DIR; the last lines are the figures to report.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
gpu_setup "$1" "$2"
export PYTHONPATH="${pkg}"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
# SKIP_SANITIZE=1 leaves compute-sanitizer out (run tests/gpu/sanitize.sh on its own).
[[ "${SKIP_SANITIZE:-0}" == 1 ]] || step sanitize 3600 tests/gpu/sanitize.sh "${art}" "${out}"
step drift_python 900 env CUBRIDGE_BACKEND=cuda python3 tests/gpu/memory_drift.py --rounds 1000 --json "${out}/drift_python.json"
step drift_go 900 env -C go/cubridge CUBRIDGE_BACKEND=cuda CUBRIDGE_SOAK_ROUNDS=1000 \
  "${art}/cubridge_test.test" -test.run '^TestSoak$' -test.v
step faults_python 900 env CUBRIDGE_BACKEND=cuda python3 -m pytest -p no:cacheprovider -v -s python/tests/test_gpu_faults.py
step load_python 600 env CUBRIDGE_BACKEND=cuda CUBRIDGE_LOAD_SECONDS=20 python3 -m pytest -p no:cacheprovider -q -s python/tests/test_load.py
step load_go 600 env -C go/cubridge CUBRIDGE_BACKEND=cuda CUBRIDGE_LOAD_SECONDS=20 \
  "${art}/cubridge_test.test" -test.run '^TestLoad$' -test.v
step load_go_race 900 env -C go/cubridge CUBRIDGE_BACKEND=cuda CUBRIDGE_LOAD_SECONDS=10 \
  "${art}/cubridge_race_test.test" -test.run '^(TestLoad|TestSoak|TestConcurrency)$' -test.v
step walk_go 600 env -C go/cubridge CUBRIDGE_BACKEND=cuda \
  "${art}/cubridge_test.test" -test.run '^(TestAPIWalk.*|FuzzBufferOps|FuzzHostOps)$' -test.v
step walk_python 900 env CUBRIDGE_BACKEND=cuda CUBRIDGE_HYPOTHESIS_EXAMPLES=500 \
  python3 -m pytest -p no:cacheprovider -q python/tests/test_api_walk.py python/tests/test_properties.py
echo "--- figures"
grep -h '^compute-sanitizer:' "${out}/sanitize.log" || true
grep -h 'DRIFT' "${out}/drift_python.log" "${out}/drift_go.log" || true
grep -hE '^(load|1000 rounds):|load: ' "${out}"/load_*.log || true
echo "gpu reliability: ${pass} passed, ${fail} failed"
