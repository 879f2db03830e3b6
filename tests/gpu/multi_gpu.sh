#!/usr/bin/env bash
# The multi-GPU battery (issue 13) and the NCCL benchmark, on a GPU host with one or
# more GPUs (no Bazel, Go or network there). From the repository root on that host:
#   tests/gpu/multi_gpu.sh ARTIFACTS_DIR OUT_DIR
# ARTIFACTS_DIR holds what tests/gpu/collect.sh gathered (comm_test, the Go test
# binary, the wheel; ncclbench when built). BENCH=0 skips the benchmark (bench/nccl_bench.py:
# all_reduce bus bandwidth of cubridge from Python and Go beside torch.distributed).
# With one GPU everything runs on one-rank communicators; the two-device checks skip
# and say so.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
gpu_setup "$1" "$2"
limit="${STEP_TIMEOUT:-600}"

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
# NCCL as the Python package finds it (the nvidia-nccl-cu13 wheel torch installed);
# the C++ and Go binaries are told through CUBRIDGE_NCCL_LIBRARY.
nccl="$(PYTHONPATH="${pkg}" python3 -c 'from cubridge import _comm; print(_comm._wheel_library() or "")')"
echo "libnccl: ${nccl:-not found (the NCCL steps will say NCCL not available)}"
export CUBRIDGE_NCCL_LIBRARY="${nccl}"

step mg_cxx_comm "${limit}" env CUBRIDGE_BACKEND=cuda "${art}/comm_test" "${nccl}"
step mg_go "${limit}" env -C go/cubridge CUBRIDGE_BACKEND=cuda "${art}/cubridge_test.test" -test.v \
  -test.run 'Comm|NCCL|ReduceOp|Device|Stream|MemoryStats|EmptyCache|ABITables'
step mg_py "${limit}" env CUBRIDGE_BACKEND=cuda PYTHONPATH="${pkg}" \
  python3 -m pytest -p no:cacheprovider -q -rs tests/gpu/multi_gpu_test.py
if [[ "${BENCH:-1}" == 1 ]]; then
  go_bench=()
  [[ -x "${art}/ncclbench" ]] && go_bench=(--go "${art}/ncclbench")
  step nccl_bench "${limit}" env PYTHONPATH="${pkg}" \
    python3 bench/nccl_bench.py --out "${out}" "${go_bench[@]}"
fi
echo "multi-gpu: ${pass} passed, ${fail} failed"
