#!/usr/bin/env bash
# GENERATED DEST: copies the generated file to DEST in the workspace (bazel run).
set -euo pipefail
[[ -n "${BUILD_WORKSPACE_DIRECTORY:-}" ]] || { echo "run me with bazel run" >&2; exit 1; }
cp "$1" "${BUILD_WORKSPACE_DIRECTORY}/$2"
chmod 644 "${BUILD_WORKSPACE_DIRECTORY}/$2"
echo "wrote $2"
