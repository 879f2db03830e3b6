#!/usr/bin/env bash
# py_wheel(platform = "auto"): the tag derived at build time, the wheel under
# its PEP 427 name, PyWheelInfo's fields; a wrong hand-written tag refused.
# Args: WHEELCHECK EXTENSION INFO_FILE ARCH (the target's: x86_64 or aarch64)
set -uo pipefail
wheelcheck="$1" ext="$2" info="$3" arch="$4"
other=aarch64
[[ "${arch}" == aarch64 ]] && other=x86_64
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}
field() { sed -n "s/^$1=//p" "${info}"; }

derived="$("${wheelcheck}" tag "${ext}")" || fail "wheelcheck tag ${ext}"
[[ "${derived}" =~ ^manylinux_2_[0-9]+_${arch}$ ]] || fail "derived tag '${derived}' (target ${arch})"

[[ "$(field platform)" == auto ]] || fail "PyWheelInfo.platform: $(field platform)"
[[ "$(field is_directory)" == True ]] || fail "PyWheelInfo.wheel is not the directory"
[[ "$(cat "$(field platform_file)")" == "${derived}" ]] || fail "platform_file: $(cat "$(field platform_file)") != ${derived}"
name="$(cat "$(field name_file)")"
[[ "${name}" == "smoke_pkg-1.0-cp311-abi3-${derived}.whl" ]] || fail "wheel name '${name}'"
wheels=("$(field wheel)"/*.whl)
[[ ${#wheels[@]} == 1 && "$(basename "${wheels[0]}")" == "${name}" ]] || fail "directory holds: ${wheels[*]}"
"${wheelcheck}" "${wheels[0]}" >/dev/null || fail "wheelcheck on the auto wheel"
python3 -c "import sys,zipfile; t=zipfile.ZipFile(sys.argv[1]).read('smoke_pkg-1.0.dist-info/WHEEL').decode(); sys.exit('Tag: cp311-abi3-${derived}' not in t)" "${wheels[0]}" ||
  fail "the WHEEL file lacks Tag: cp311-abi3-${derived}"

# A hand-written tag: the same, a newer glibc, an older one, another arch, any.
"${wheelcheck}" tag -expect "${derived}" "${ext}" >/dev/null || fail "the derived tag itself refused"
"${wheelcheck}" tag -expect "manylinux_2_99_${arch}" "${ext}" >/dev/null || fail "a newer glibc refused"
if msg="$("${wheelcheck}" tag -expect "manylinux_2_17_${arch}" "${ext}" 2>&1)"; then
  fail "manylinux_2_17 accepted"
fi
[[ "${msg}" == *"platform \"manylinux_2_17_${arch}\" allows glibc 2.17, but "*" needs glibc "*"use \"${derived}\" or \"auto\""* ]] ||
  fail "unclear message: ${msg}"
"${wheelcheck}" tag -expect "manylinux_2_35_${other}" "${ext}" >/dev/null 2>&1 && fail "${other} accepted for ${arch} code"
"${wheelcheck}" tag -expect any "${ext}" >/dev/null 2>&1 && fail "any accepted for native code"

if ((fails)); then
  exit 1
fi
echo "PASS: derived ${derived}, wheel ${name}"
