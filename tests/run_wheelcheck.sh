#!/usr/bin/env bash
# Runs toolchains/python/wheelcheck on the built wheel (the one .whl in the
# directory py_wheel writes): its tags must match what its native code needs.
set -euo pipefail
wheels=("$2"/*.whl)
[[ ${#wheels[@]} -eq 1 && -f "${wheels[0]}" ]] || {
  echo "expected one wheel in $2, found: ${wheels[*]}" >&2
  exit 1
}
exec "$1" "${wheels[0]}"
