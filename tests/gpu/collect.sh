#!/usr/bin/env bash
# Builds what the GPU host runs (tests/gpu/run_all.sh) and copies it into DIR
# (default .artifacts/, git-ignored): C++ and Go test binaries, cubridge-info, the wheel.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir="${1:-.artifacts}"
targets=(//cuda:cubridge_test //toolchains/cuda/tests:smoke_test //go/cubridge:cubridge_test
  //go/cubridge:cubridge_race_test //go/cmd/cubridge-info //python:wheel)
tools/bazel build "${targets[@]}"
rm -rf "${dir}"
mkdir -p "${dir}"
cp bazel-bin/cuda/cubridge_test bazel-bin/toolchains/cuda/tests/smoke_test \
  bazel-bin/go/cubridge/cubridge_test.test bazel-bin/go/cubridge/cubridge_race_test.test \
  bazel-bin/go/cmd/cubridge-info/cubridge-info bazel-bin/python/cubridge-*.whl "${dir}/"
chmod u+w "${dir}"/*
du -sh "${dir}"
