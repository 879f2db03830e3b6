#!/usr/bin/env bash
# Tests tools/rootfs/packages.sh (tools/bazel's package-version resolution)
# against fake package lists: all pins present, pins gone from the mirror, and
# a Bazel whose major differs from the build's.
set -uo pipefail
here="$(dirname "$0")"
[[ -n "${TEST_SRCDIR:-}" ]] && here="${TEST_SRCDIR}/${TEST_WORKSPACE:-_main}/tools/rootfs"
# shellcheck source=packages.sh
source "${here}/packages.sh"
data="${here}/testdata"
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}
expect_line() { # expect_line FILE LINE
  grep -qxF "$2" "$1" || fail "$1 lacks line '$2'; has:$(printf '\n  %s' "$(cat "$1")")"
}

PINS=(bazel-bootstrap=7.7.1+ds-8+b1 g++-14=14.4.0-3 python3=3.14.7-3 clangd=1:21.1.8-74 python3.13-venv=3.13.18-1)
REQS=("bazel-bootstrap 7.7" "g++-14 14" "python3 3.14" "clangd 21" "python3.13-venv 3.13")

# 1. Every pin available: the base suite (forky) where it has the version, sid
#    otherwise; nothing replaced, nothing said.
resolve_pins "${data}/current.txt" "forky sid" "${PINS[@]}" >"${tmp}/r1" 2>"${tmp}/e1" || fail "current: resolve failed"
expect_line "${tmp}/r1" "bazel-bootstrap 7.7.1+ds-8+b1 7.7.1+ds-8+b1 forky bazel-bootstrap=7.7.1+ds-8+b1"
expect_line "${tmp}/r1" "python3 3.14.7-3 3.14.7-3 forky python3=3.14.7-3"
expect_line "${tmp}/r1" "python3.13-venv 3.13.18-1 3.13.18-1 sid python3.13-venv/sid"
[[ -s "${tmp}/e1" ]] && fail "current: unexpected messages: $(cat "${tmp}/e1")"
[[ -z "$(replaced_pins "${tmp}/r1")" ]] || fail "current: pins replaced"
check_requirements "${tmp}/r1" "${REQS[@]}" >"${tmp}/c1" || fail "current: requirements failed: $(cat "${tmp}/c1")"

# A pin that only the second suite still has is taken from there, exactly.
resolve_pins "${data}/current.txt" "forky sid" python3=3.14.8-1 >"${tmp}/r1b" 2>/dev/null
expect_line "${tmp}/r1b" "python3 3.14.8-1 3.14.8-1 sid python3/sid"

# 2. Pins gone (g++-14 and python3 moved on): the base suite's current version,
#    said loudly old -> new; the build's requirements still hold.
resolve_pins "${data}/pin_gone.txt" "forky sid" "${PINS[@]}" >"${tmp}/r2" 2>"${tmp}/e2" || fail "pin gone: resolve failed"
expect_line "${tmp}/r2" "g++-14 14.4.0-3 14.5.0-1 forky g++-14=14.5.0-1"
expect_line "${tmp}/r2" "python3 3.14.7-3 3.14.9-1 forky python3=3.14.9-1"
expect_line "${tmp}/e2" "WARNING: pinned g++-14=14.4.0-3 is gone from the mirror; installing g++-14 14.4.0-3 -> 14.5.0-1 (forky)"
expect_line "${tmp}/e2" "WARNING: pinned python3=3.14.7-3 is gone from the mirror; installing python3 3.14.7-3 -> 3.14.9-1 (forky)"
[[ "$(replaced_pins "${tmp}/r2" | wc -l)" == 2 ]] || fail "pin gone: expected 2 replaced pins"
check_requirements "${tmp}/r2" "${REQS[@]}" >"${tmp}/c2" || fail "pin gone: requirements failed: $(cat "${tmp}/c2")"

# 3. The Bazel major differs: resolution goes on (loudly), the requirement
#    check fails and names the package, the version and the requirement.
resolve_pins "${data}/bazel_major.txt" "forky sid" "${PINS[@]}" >"${tmp}/r3" 2>"${tmp}/e3" || fail "bazel major: resolve failed"
expect_line "${tmp}/e3" "WARNING: pinned bazel-bootstrap=7.7.1+ds-8+b1 is gone from the mirror; installing bazel-bootstrap 7.7.1+ds-8+b1 -> 8.4.2+ds-1 (forky)"
if check_requirements "${tmp}/r3" "${REQS[@]}" >"${tmp}/c3"; then
  fail "bazel major: requirements passed with Bazel 8"
fi
expect_line "${tmp}/c3" "error: bazel-bootstrap 8.4.2+ds-1 does not meet the build's requirement 7.7.x"
[[ "$(wc -l <"${tmp}/c3")" == 1 ]] || fail "bazel major: only Bazel should fail: $(cat "${tmp}/c3")"

# 4. A package in no suite at all is an error naming it.
if resolve_pins "${data}/current.txt" "forky sid" no-such-pkg=1.0 >/dev/null 2>"${tmp}/e4"; then
  fail "missing package: resolve succeeded"
fi
expect_line "${tmp}/e4" "error: package no-such-pkg is in none of the suites forky sid"

# 5. Installed versions ("NAME VERSION") are checked the same way.
printf 'bazel-bootstrap 7.7.1+ds-8+b1\ng++-14 15.1.0-1\n' >"${tmp}/installed"
check_requirements "${tmp}/installed" "bazel-bootstrap 7.7" "g++-14 14" >"${tmp}/c5" && fail "installed: g++ 15 passed"
expect_line "${tmp}/c5" "error: g++-14 15.1.0-1 does not meet the build's requirement 14.x"

# 6. madison's output parsed; versions' upstream parts.
packages_from_madison <"${data}/madison.txt" >"${tmp}/m"
expect_line "${tmp}/m" "bazel-bootstrap 7.7.1+ds-8+b1 forky"
expect_line "${tmp}/m" "clangd 1:21.1.8-74 forky"
expect_line "${tmp}/m" "python3 3.14.8-1 sid"
[[ "$(upstream_version 1:21.1.8-74)" == 21.1.8 ]] || fail "upstream_version epoch"
[[ "$(upstream_version 7.7.1+ds-8+b1)" == 7.7.1+ds ]] || fail "upstream_version revision"
version_meets 7.7.10-1 7.7 || fail "7.7.10 meets 7.7"
version_meets 7.70.1-1 7.7 && fail "7.70.1 does not meet 7.7"

if ((fails)); then
  echo "${fails} failure(s)" >&2
  exit 1
fi
echo "PASS: package-version resolution"
