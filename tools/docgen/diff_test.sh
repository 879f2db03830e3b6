#!/usr/bin/env bash
# GENERATED COMMITTED HOW_TO_UPDATE: fails when the committed file differs.
set -euo pipefail
if ! diff -u "$2" "$1"; then
  echo "$2 is out of date: run '$3'" >&2
  exit 1
fi
echo "PASS: $2 is up to date"
