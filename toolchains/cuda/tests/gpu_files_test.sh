#!/usr/bin/env bash
# cuda_library's ptx / cubin / fatbin output groups for archs sm_80, sm_90a,
# compute_90: one PTX per virtual arch, one cubin per real arch, one fatbin.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

declare -A seen=()
for f in "$@"; do
  [[ -s "${f}" ]] || fail "${f} is missing or empty"
  seen["$(basename "${f}")"]="${f}"
done
expected=(smoke.compute_80.ptx smoke.compute_90a.ptx smoke.compute_90.ptx
  smoke.sm_80.cubin smoke.sm_90a.cubin smoke.fatbin)
for name in "${expected[@]}"; do
  [[ -n "${seen[${name}]:-}" ]] || fail "no ${name} among: $*"
done
[[ $# -eq ${#expected[@]} ]] || fail "expected ${#expected[@]} files, got $#: $*"

grep -q '^\.target sm_90a' "${seen[smoke.compute_90a.ptx]}" || fail "compute_90a PTX does not target sm_90a"
grep -q '^\.target sm_80' "${seen[smoke.compute_80.ptx]}" || fail "compute_80 PTX does not target sm_80"
grep -q 'smoke_kernel' "${seen[smoke.compute_90.ptx]}" || fail "the kernel is not in the PTX"
for cubin in "${seen[smoke.sm_80.cubin]}" "${seen[smoke.sm_90a.cubin]}"; do
  [[ "$(head -c 4 "${cubin}" | od -An -tx1 | tr -d ' \n')" == "7f454c46" ]] || fail "${cubin} is not ELF"
done
# A fatbin starts with the magic 0xba55ed50 (little-endian).
[[ "$(head -c 4 "${seen[smoke.fatbin]}" | od -An -tx1 | tr -d ' \n')" == "50ed55ba" ]] ||
  fail "smoke.fatbin has no fatbin magic"
echo "PASS: $# files"
