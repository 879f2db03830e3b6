#!/usr/bin/env bash
# Builds what examples/downstream/gpu/run.sh runs on the GPU host and packs it into
# DIR/downstream.tar.xz (default DIR: the repository's .artifacts/, git-ignored):
# the wheels of the three bound examples and cubridge's (their extensions call its
# C API), and the C++ and Go tests that run the shared vectors. On the GPU host,
# from examples/downstream:
#   mkdir -p /tmp/d && tar -xJf ../../.artifacts/downstream.tar.xz -C /tmp/d && gpu/run.sh /tmp/d OUT
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir="${1:-../../.artifacts}"
targets=(//saxpy:wheel //quantize:wheel //gemm:wheel @cubridge//python:wheel
  //saxpy:saxpy_vectors_test //saxpy:saxpy_test //quantize:quantize_vectors_test
  //quantize:quantize_test //gemm:gemm_cc_test //gemm/gemmgo:gemmgo_test)
# BUILD_FLAGS: Bazel flags (default --config=ci: sm_90 only, the H200);
# "--config=ci --config=aarch64": the same for a GH200 host (aarch64 wheels and
# binaries; built and run under qemu here, never on such a host).
flags="${BUILD_FLAGS:---config=ci}"
# shellcheck disable=SC2086
../../tools/bazel build ${flags} "${targets[@]}"
staging="$(mktemp -d)"
trap 'rm -rf "${staging}"' EXIT
for target in "${targets[@]}"; do
  # shellcheck disable=SC2086
  ../../tools/bazel cquery ${flags} "${target}" --output=files 2>/dev/null |
    while read -r f; do
      if [[ -d "${f}" ]]; then # py_wheel with a derived platform tag: a directory with the .whl
        cp "${f}"/*.whl "${staging}/"
      else
        cp "${f}" "${staging}/"
      fi
    done
done
chmod u+w "${staging}"/*
mkdir -p "${dir}"
tar -C "${staging}" -cJf "${dir}/downstream.tar.xz" .
ls -l "${dir}/downstream.tar.xz"
