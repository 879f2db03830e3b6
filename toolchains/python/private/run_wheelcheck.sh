#!/usr/bin/env bash
# wheel_check_test's script: runs wheelcheck (toolchains/python/wheelcheck) on
# the one .whl in the directory py_wheel writes, with any further arguments
# (-external GLOB) before it. Its tags must match what its native code needs.
set -euo pipefail
usage="usage: run_wheelcheck.sh WHEELCHECK WHEEL_DIR [WHEELCHECK_FLAG...]"
wheelcheck="${1:?${usage}}"
wheels=("${2:?${usage}}"/*.whl)
[[ ${#wheels[@]} -eq 1 && -f "${wheels[0]}" ]] || {
  echo "expected one wheel in $2, found: ${wheels[*]}" >&2
  exit 1
}
exec "${wheelcheck}" "${@:3}" "${wheels[0]}"
