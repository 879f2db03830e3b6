#!/usr/bin/env bash
# On a multi-GPU host (no Bazel needed): N+1 "tests" at once under gpuwrap,
# N = the GPU count. Each of the first N must see exactly one GPU, all
# different (torch reports its UUID); the extra one must wait for a free GPU.
#   tools/gpuwrap/gpu_host_check.sh GPUWRAP_BINARY [PYTHON]
# Build the binary here: tools/bazel build //tools/gpuwrap (bazel-bin/tools/gpuwrap/gpuwrap).
set -uo pipefail
gpuwrap="$1" python="${2:-python3}"
n="$(nvidia-smi -L | grep -c '^GPU ')"
((n >= 1)) || { echo "FAIL: no GPU" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
probe='import os, sys, time, torch
print(os.environ.get("CUDA_VISIBLE_DEVICES"), torch.cuda.device_count(), torch.cuda.get_device_properties(0).uuid, flush=True)
time.sleep(float(sys.argv[1]))'
start=$(date +%s.%N)
for i in $(seq 0 "${n}"); do
  "${gpuwrap}" "${python}" -c "${probe}" 4 >"${out}/${i}.txt" 2>"${out}/${i}.err" &
done
wait
elapsed="$(awk -v a="${start}" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')"
cat "${out}"/*.err "${out}"/*.txt | sed 's/^/  /'
fails=0
uuids="$(cat "${out}"/*.txt | awk '{print $3}' | sort | uniq -c)"
[[ "$(cat "${out}"/*.txt | awk '$2 != 1' | wc -l)" == 0 ]] || { echo "FAIL: a test saw more than one GPU" >&2; fails=1; }
[[ "$(echo "${uuids}" | wc -l)" == "${n}" ]] || { echo "FAIL: ${n} GPUs, devices seen: ${uuids}" >&2; fails=1; }
# N+1 tests of 4 s on N GPUs: the extra one waits for the first free GPU.
awk -v e="${elapsed}" 'BEGIN{exit !(e >= 7.5)}' || { echo "FAIL: ${elapsed} s: the extra test did not wait" >&2; fails=1; }
((fails)) && exit 1
echo "PASS: $((n + 1)) tests on ${n} GPUs: each saw one GPU, ${n} distinct devices, the extra one waited (${elapsed} s)"
