#!/bin/bash
# check.sh FILE SECONDS: FILE holds "hello" (any case); then a busy test's
# time passes.
set -euo pipefail
grep -qi '^hello$' "$1" || {
  echo "$1 does not say hello:" >&2
  cat "$1" >&2
  exit 1
}
sleep "$2"
