#!/usr/bin/env bash
# cubridge's nvcc (the toolkit's own is nvcc.real beside it): the same compile,
# made reproducible. Three things made two compiles of one source differ:
#  - the object keeps a file symbol naming nvcc's temporary file
#    (tmpxft_<pid>_...): removed from the output object;
#  - the source's absolute (real) path reaches the object: relocatable device
#    code names its module after it, and every compile hashes it into the name
#    of its anonymous namespaces (_GLOBAL__N__<hash>_...), so a checkout at
#    another path, or a remote worker's input root, gave other objects: named
#    after the path given instead;
#  - the host compiler's random seed: seeded with the output's path.
# rules_cuda runs this as the toolkit's nvcc; other arguments pass through.
set -euo pipefail
real="$(dirname "$0")/nvcc.real"
out="" src="" ccbin=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
  -o) out="${args[i + 1]:-}" ;;
  -ccbin | --compiler-bindir) ccbin="${args[i + 1]:-}" ;;
  *.cu) src="${args[i]}" ;;
  esac
done
extra=()
[[ -n "${out}" ]] && extra+=("-Xcompiler=-frandom-seed=${out}")
[[ -n "${src}" ]] && extra+=(-Xcudafe "--orig_src_path_name=${src}")
"${real}" "${extra[@]}" "$@"
# The host compiler's own objcopy: a cross compiler's objects (aarch64) are not
# the build machine's objcopy's to edit.
objcopy=objcopy
[[ -n "${ccbin}" ]] && objcopy="$("${ccbin}" -print-prog-name=objcopy)"
case "${out}" in
*.o) "${objcopy}" --wildcard --strip-symbol='tmpxft_*' "${out}" ;;
esac
