#!/usr/bin/env bash
# tools/bazel's GPU count and --local_resources=gpu=N insertion (resources.sh).
set -uo pipefail
here="$(dirname "$0")"
[[ -n "${TEST_SRCDIR:-}" ]] && here="${TEST_SRCDIR}/${TEST_WORKSPACE:-_main}/tools/gpuwrap"
# shellcheck source=resources.sh
source "${here}/resources.sh"
fails=0
expect() { # expect "WANT" ARGS... (with the environment already set)
  local want="$1"
  shift
  with_gpu_resources "$@"
  [[ "${bazel_args[*]}" == "${want}" ]] || {
    echo "FAIL: $*: got '${bazel_args[*]}', want '${want}'" >&2
    fails=$((fails + 1))
  }
}
unset CUDA_VISIBLE_DEVICES
export CUBRIDGE_GPU_COUNT=4
expect "--host_jvm_args=-Xmx2g test --local_resources=gpu=4 --config=gpu //..." --host_jvm_args=-Xmx2g test --config=gpu //...
expect "build --local_resources=gpu=4 //x" build //x
expect "run --local_resources=gpu=4 //x -- a" run //x -- a
expect "shutdown" shutdown
expect "query //..." query //...
expect "" 
export CUBRIDGE_GPU_COUNT=0
expect "test //..." test //...
unset CUBRIDGE_GPU_COUNT
export CUDA_VISIBLE_DEVICES="2, 5,7"
expect "test --local_resources=gpu=3 //..." test //...
[[ "$(gpu_count)" == 3 ]] || { echo "FAIL: gpu_count with CUDA_VISIBLE_DEVICES" >&2; fails=$((fails + 1)); }
((fails)) && exit 1
echo "PASS"
