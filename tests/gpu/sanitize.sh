#!/usr/bin/env bash
# compute-sanitizer over the C++ test binary on the GPU host (CUDA backend):
# memcheck (with leak check), racecheck, initcheck and synccheck. Usage, from
# the repository root there:
#   tests/gpu/sanitize.sh ARTIFACTS_DIR OUT_DIR
# ARTIFACTS_DIR holds cubridge_test (tests/gpu/collect.sh). Each tool's log goes
# to OUT_DIR/sanitize-TOOL.log; the last line sums the findings. Exit status 1
# when any tool reports an error. GTEST_FILTER narrows the tests (racecheck and
# initcheck are slow: the default leaves out the large benchmarks-like tests).
# SANITIZE_PYTHON=1 PKG=DIR adds the Python tests under memcheck's leak check
# (PYTEST_ARGS: more pytest arguments, e.g. --ignore=FILE).
set -uo pipefail
art="$(cd "$1" && pwd)"
out="$2"
mkdir -p "${out}"
export CUBRIDGE_VECTORS_DIR="${CUBRIDGE_VECTORS_DIR:-$(pwd)/tests/vectors}"
export CUBRIDGE_BACKEND=cuda
cs="${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
[[ -x "${cs}" ]] || cs="$(command -v compute-sanitizer)" || { echo "no compute-sanitizer" >&2; exit 2; }
# The tests make CUDA API calls fail on purpose (huge allocations, bad
# pointers): those are not findings, so API errors are not reported.
common=(--error-exitcode 99 --report-api-errors no --print-limit 100 --nvtx yes)
total=0
status=0
# findings LOG: the error count of a tool's summary line in LOG, or "?".
findings() {
  local n
  n="$(grep -oE 'ERROR SUMMARY: [0-9]+' "$1" | tail -n1 | grep -oE '[0-9]+' || true)"
  # racecheck sums up its own way: "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)".
  [[ -z "${n}" ]] && n="$(grep -oE 'RACECHECK SUMMARY: .*\(([0-9]+) error' "$1" | tail -n1 | grep -oE '[0-9]+ error' | grep -oE '[0-9]+' || true)"
  echo "${n:-?}"
}
# tally RC N: a run's exit status and findings into the totals.
tally() {
  [[ "$2" =~ ^[0-9]+$ ]] && total=$((total + $2))
  [[ $1 -ne 0 ]] && status=1
  return 0
}
run() { # run TOOL EXTRA_FLAGS...
  local tool="$1"
  shift
  local log="${out}/sanitize-${tool}.log"
  echo "=== compute-sanitizer --tool ${tool}"
  timeout "${SANITIZE_TIMEOUT:-900}" "${cs}" --tool "${tool}" "${common[@]}" "$@" \
    "${art}/cubridge_test" --gtest_filter="${GTEST_FILTER:-*}" >"${log}" 2>&1
  local rc=$?
  local n
  n="$(findings "${log}")"
  echo "${tool}: exit ${rc}, ${n} errors ($(grep -cE '^\[  PASSED  \]|^\[  FAILED  \]' "${log}") gtest summaries)"
  grep -E '^\[  (PASSED|FAILED)  \]' "${log}" | tail -n 2
  tally "${rc}" "${n}"
}
# SANITIZE_TOOLS picks the tools over the C++ suite (default: all four; "" none).
tools=" ${SANITIZE_TOOLS-memcheck racecheck initcheck synccheck} "
[[ "${tools}" == *" memcheck "* ]] && run memcheck --leak-check full --check-device-heap yes
# racecheck loses track of kernels launched at once from several host threads
# (Pool.ReuseAcrossStreamsAndThreads: "Internal Sanitizer Error: Detected a
# failure to track a kernel launch" in 6 runs of 6, none of 6 with launches
# serialized). It checks shared-memory hazards inside each kernel, which the
# host's launch order does not change, so its launches are serialized.
if [[ "${tools}" == *" racecheck "* ]]; then
  export CUDA_LAUNCH_BLOCKING=1
  run racecheck --racecheck-report analysis
  unset CUDA_LAUNCH_BLOCKING
fi
[[ "${tools}" == *" initcheck "* ]] && run initcheck
[[ "${tools}" == *" synccheck "* ]] && run synccheck
# The Python tests under memcheck with its leak check (SANITIZE_PYTHON=1; the
# wheel installed in PKG): the extension's teardown (cubridge_shutdown at
# interpreter exit) must leave nothing allocated. CuPy and torch are hidden,
# so their own caches (freed by nobody at exit) do not count; their modules skip.
if [[ "${SANITIZE_PYTHON:-0}" == 1 ]]; then
  log="${out}/sanitize-python.log"
  echo "=== compute-sanitizer --tool memcheck --leak-check full: python/tests"
  # test_no_visible_gpu is left out: the sanitizer's child processes see the
  # GPU whatever CUDA_VISIBLE_DEVICES says (its "no device" child computed).
  # --show-backtrace device: a host backtrace saved for each allocation holds
  # the Python frames of its call stack, and with them the Arrays in their
  # locals, which then outlive their last use and are reported leaked (seen:
  # an Array returned from a function kept a reference count of 3, not 2).
  # shellcheck disable=SC2086
  timeout "${SANITIZE_TIMEOUT:-900}" "${cs}" --tool memcheck "${common[@]}" --leak-check full \
    --show-backtrace device \
    env PYTHONPATH="${PKG:?PKG: the installed wheel}" python3 tests/gpu/pytest_without_peers.py \
    -p no:cacheprovider -q ${PYTEST_ARGS:-} python/tests \
    --deselect python/tests/test_gpu_faults.py::test_no_visible_gpu >"${log}" 2>&1
  rc=$?
  n="$(findings "${log}")"
  echo "python memcheck: exit ${rc}, ${n} errors; $(grep -E 'LEAK SUMMARY|[0-9]+ (passed|failed)' "${log}" | tail -n 2 | tr '\n' ' ')"
  tally "${rc}" "${n}"
fi
echo "compute-sanitizer: ${total} findings in all (logs in ${out}/sanitize-*.log)"
exit ${status}
