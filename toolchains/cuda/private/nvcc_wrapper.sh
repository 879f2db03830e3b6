#!/usr/bin/env bash
# cubridge's nvcc (the toolkit's own is nvcc.real beside it): the same compile,
# made reproducible. Three things made two compiles of one source differ:
#  - the object keeps a file symbol naming nvcc's temporary file
#    (tmpxft_<pid>_...): removed from the output object;
#  - relocatable device code names its module after the source's absolute
#    path, a per-sandbox directory: named after the path given instead;
#  - the host compiler's random seed: seeded with the output's path.
# rules_cuda runs this as the toolkit's nvcc; other arguments pass through.
set -euo pipefail
real="$(dirname "$0")/nvcc.real"
out="" rdc=0 src="" ccbin=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
  -o) out="${args[i + 1]:-}" ;;
  -ccbin | --compiler-bindir) ccbin="${args[i + 1]:-}" ;;
  -rdc=true | --relocatable-device-code=true | -dc | --device-c) rdc=1 ;;
  *.cu) src="${args[i]}" ;;
  esac
done
extra=()
[[ -n "${out}" ]] && extra+=("-Xcompiler=-frandom-seed=${out}")
[[ ${rdc} == 1 && -n "${src}" ]] && extra+=(-Xcudafe "--orig_src_path_name=${src}")
"${real}" "${extra[@]}" "$@"
# The host compiler's own objcopy: a cross compiler's objects (aarch64) are not
# the build machine's objcopy's to edit.
objcopy=objcopy
[[ -n "${ccbin}" ]] && objcopy="$("${ccbin}" -print-prog-name=objcopy)"
case "${out}" in
*.o) "${objcopy}" --wildcard --strip-symbol='tmpxft_*' "${out}" ;;
esac
