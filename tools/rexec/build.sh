# shellcheck shell=bash
# Sourced by tools/rexec/up and down: the state directory (--state DIR, else
# $CUBRIDGE_REXEC_DIR, else ~/.cache/cubridge/rexec) and the engine and worker
# binaries, built there from this checkout (static: CGO_ENABLED=0).
state="${CUBRIDGE_REXEC_DIR:-${CUBRIDGE_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/cubridge}/rexec}"
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
  --state=*) state="${!i#--state=}" ;;
  --state)
    j=$((i + 1))
    state="${!j:-}"
    ;;
  esac
done
[[ -n "${state}" ]] || {
  echo "[tools/rexec] error: --state needs a directory" >&2
  exit 2
}
bin="${state}/bin"
# here: the directory of the sourcing script (up, down).
# shellcheck disable=SC2154
repo="$(cd "${here}/../.." && pwd)"
command -v go >/dev/null || {
  echo "[tools/rexec] error: go is needed to build the engine's tools (tools/rexec/{engine,worker})" >&2
  exit 1
}
mkdir -p "${bin}"
(cd "${repo}" && CGO_ENABLED=0 go build -trimpath -o "${bin}/" ./tools/rexec/engine ./tools/rexec/worker)
