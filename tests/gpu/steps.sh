# shellcheck shell=bash
# Sourced by run_all.sh and reliability.sh (GPU host): common setup and the step runner.
# gpu_setup ARTIFACTS_DIR OUT_DIR sets art, out and pkg (the wheel installed there, on
# PYTHONPATH for the steps that pass it) and the shared test vectors.
gpu_setup() {
  art="$(cd "$1" && pwd)"
  out="$(mkdir -p "$2" && cd "$2" && pwd)"
  CUBRIDGE_VECTORS_DIR="$(pwd)/tests/vectors"
  export CUBRIDGE_VECTORS_DIR
  pkg="$(mktemp -d)"
  python3 -m pip install --no-deps --no-index --target "${pkg}" "${art}"/cubridge_cu*-*.whl >"${out}/pip.log" 2>&1
  pass=0
  fail=0
}

# step NAME TIMEOUT COMMAND...: run with a time limit, log to OUT/NAME.log, count.
# Runs in this shell (use `env -C DIR` for another directory), so the counts add up.
step() {
  local name="$1" limit="$2"
  shift 2
  echo "=== ${name}"
  timeout "${limit}" "$@" >"${out}/${name}.log" 2>&1
  local rc=$?
  if [[ ${rc} -eq 0 ]]; then
    pass=$((pass + 1))
    echo "PASS ${name}"
  else
    fail=$((fail + 1))
    echo "FAIL ${name} (exit ${rc})"
  fi
  tail -n 5 "${out}/${name}.log"
}
