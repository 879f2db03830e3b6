#!/usr/bin/env bash
# Builds what the GPU host runs (tests/gpu/run_all.sh) and packs it into
# DIR/bundle.tar.xz (default DIR: .artifacts/, git-ignored): the C++ and Go test
# binaries, cubridge-info, the Go benchmarks and the wheel (multi_gpu.sh needs comm_test
# and ncclbench too); kernel_binding's demo (toolchains/bind/tests): its Go test, its
# contract test and its Python extension with the .pyi (in bind/, for bench/bind_bench.py
# and the demo's pytest). Compressed: the device tool carries at
# most 64 MiB, working tree included. On the GPU host:
#   mkdir -p /tmp/a && tar -xJf .artifacts/bundle.tar.xz -C /tmp/a && tests/gpu/run_all.sh /tmp/a OUT
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir="${1:-.artifacts}"
targets=(//cuda:cubridge_test //cuda:cubridge_bench //toolchains/cuda/tests:smoke_test
  //go/cubridge:cubridge_test //go/cubridge:cubridge_race_test //go/cmd/cubridge-info
  //bench/gobench //python:wheel //cuda:comm_test //bench/ncclbench
  //toolchains/bind/tests:tests_test //toolchains/bind/tests:demo_contract_test
  //toolchains/bind/tests:demo_ext //toolchains/bind/tests:demo_pyi_files)
# BUILD_FLAGS: extra Bazel flags, e.g. --config=ci to build sm_90 only (the H100).
# shellcheck disable=SC2086
tools/bazel build ${BUILD_FLAGS:-} "${targets[@]}"
staging="$(mktemp -d)"
trap 'rm -rf "${staging}"' EXIT
mkdir "${staging}/bind"
# The outputs where Bazel put them (the race test lives in a transitioned
# configuration's bin directory, not bazel-bin), copied flat: the wheel out of
# its directory (py_wheel names it after the build), Go test binaries as
# NAME.test (go test's name; the C++ test of the same name stays NAME).
for target in "${targets[@]}"; do
  # shellcheck disable=SC2086
  tools/bazel cquery ${BUILD_FLAGS:-} "${target}" --output=files 2>/dev/null |
    while read -r f; do
      if [[ -d "${f}" ]]; then
        cp "${f}"/*.whl "${staging}/"
        continue
      fi
      name="$(basename "${f}")"
      case "${target}" in
        //go/cubridge:*) name="${name}.test" ;;
        //toolchains/bind/tests:tests_test) name="bind_demo_test.test" ;;
        //toolchains/bind/tests:demo_ext | //toolchains/bind/tests:demo_pyi_files) name="bind/${name}" ;;
      esac
      cp "${f}" "${staging}/${name}"
    done
done
chmod u+w "${staging}"/* "${staging}"/bind/*
mkdir -p "${dir}"
tar -C "${staging}" -cJf "${dir}/bundle.tar.xz" .
ls -l "${dir}/bundle.tar.xz"
