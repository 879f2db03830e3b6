#!/usr/bin/env bash
# The device-link object of :apply (among its rdc objects) registers both rdc
# modules (scale.cu and apply.cu): without it, their host code's
# __cudaRegisterLinkedBinary_* calls stay undefined.
set -euo pipefail
defined="$(nm "$@" | awk '$2 == "T" && $3 ~ /^__cudaRegisterLinkedBinary_/ {print $3}')"
echo "${defined}"
grep -q '_scale_cu' <<<"${defined}" || { echo "FAIL: scale.cu's module is not registered" >&2; exit 1; }
grep -q '_apply_cu' <<<"${defined}" || { echo "FAIL: apply.cu's module is not registered" >&2; exit 1; }
