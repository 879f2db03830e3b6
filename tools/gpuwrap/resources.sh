# shellcheck shell=bash
# GPUs as a Bazel resource, for tools/bazel (sourced).
# Tests tagged resources:gpu:1 (//tools/gpuwrap:defs.bzl) run at most one per
# GPU: build, test, run and coverage get --local_resources=gpu=<count> after the
# command (.bazelrc's default is 1). The count: CUBRIDGE_GPU_COUNT, else the
# entries of CUDA_VISIBLE_DEVICES, else the /dev/nvidiaN device nodes.
gpu_count() {
  if [[ -n "${CUBRIDGE_GPU_COUNT:-}" ]]; then
    echo "${CUBRIDGE_GPU_COUNT}"
  elif [[ -n "${CUDA_VISIBLE_DEVICES:-}" ]]; then
    tr ',' '\n' <<<"${CUDA_VISIBLE_DEVICES}" | grep -c '[^[:space:]]'
  else
    find /dev -maxdepth 1 -regex '/dev/nvidia[0-9]+' 2>/dev/null | wc -l
  fi
}

# with_gpu_resources ARGS...: the arguments, with --local_resources=gpu=N after
# the command when this machine has N >= 1 GPUs (in the array bazel_args).
with_gpu_resources() {
  bazel_args=("$@")
  local i n
  n="$(gpu_count)"
  [[ "${n}" =~ ^[0-9]+$ && "${n}" -ge 1 ]] || return 0
  for i in "${!bazel_args[@]}"; do
    case "${bazel_args[i]}" in
    -*) continue ;; # startup options
    build | test | run | coverage)
      bazel_args=("${bazel_args[@]:0:i+1}" "--local_resources=gpu=${n}" "${bazel_args[@]:i+1}")
      ;;
    esac
    return 0
  done
}
