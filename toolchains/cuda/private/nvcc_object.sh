#!/usr/bin/env bash
# Runs nvcc to make an object, then removes the file symbol that names nvcc's
# temporary file (tmpxft_<pid>_...): the one difference between two compiles of
# the same source, which would make every build unique.
# Usage: nvcc_object.sh OBJCOPY OUT NVCC ARGS...
set -euo pipefail
objcopy="$1" out="$2"
shift 2
"$@"
"${objcopy}" --wildcard --strip-symbol='tmpxft_*' "${out}"
