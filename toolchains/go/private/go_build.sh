#!/usr/bin/env bash
# Builder for cubridge's Go rules: runs `go build` or `go test -c` on one package
# inside a Bazel action, hermetically:
#  - GOROOT is the SDK repository, modules come from the go_deps repository's
#    download cache used as a file:// proxy (no network; go.sum verifies them);
#  - GOCACHE, GOMODCACHE and GOPATH are fresh temporary directories;
#  - -trimpath and an empty build id keep absolute paths and randomness out.
# Usage: go_build.sh build|test OUT MODULE_DIR PACKAGE_DIR [GO_FLAGS...]
#        go_build.sh stdlib OUT_CACHE_DIR [GO_FLAGS...]   (prebuilds std into a cache)
# CGO_WHOLE_ARCHIVES: archives to link whole, once.
# Paths in CGO_CFLAGS / CGO_LDFLAGS / CGO_WHOLE_ARCHIVES may start with @PWD@ (the execroot).
set -euo pipefail
root="${PWD}"
if [[ "$1" == "stdlib" ]]; then
  cache="${root}/$2"
  shift 2
  export GOROOT="${root}/${GO_SDK_ROOT}" GOCACHE="${cache}" GOFLAGS= GOTOOLCHAIN=local GOTELEMETRY=off
  export GOPATH="$(mktemp -d)" HOME="$(mktemp -d)" CGO_ENABLED=1
  # All of std that has Go files but two internal packages that embed files (symlinks in the
  # sandbox, which go:embed refuses); nothing here imports them.
  mapfile -t pkgs < <("${GOROOT}/bin/go" list -e -f '{{if .GoFiles}}{{.ImportPath}}{{end}}' std | grep -v -e '^internal/trace/traceviewer' -e '/jsontest$')
  "${GOROOT}/bin/go" build -trimpath "$@" "${pkgs[@]}"
  rm -f "${cache}/testexpire.txt"
  exit 0
fi
mode="$1" out="$2" module_dir="$3" package_dir="$4"
shift 4
tmp="$(mktemp -d)"
trap 'chmod -R u+w "${tmp}" 2>/dev/null; rm -rf "${tmp}"' EXIT

export GOROOT="${root}/${GO_SDK_ROOT}"
export GOPROXY="file://${root}/${GO_MODULE_CACHE}" GOSUMDB=off GONOSUMDB= GOPRIVATE=
export GOFLAGS="-mod=readonly" GOTOOLCHAIN=local GOWORK=off GO111MODULE=on GOTELEMETRY=off
export GOMODCACHE="${tmp}/mod" GOCACHE="${GO_CACHE_DIR:-${tmp}/cache}" GOPATH="${tmp}/path" HOME="${tmp}"
export CGO_ENABLED=1
export CGO_CFLAGS="${CGO_CFLAGS//@PWD@/${root}}"
export CGO_LDFLAGS="${CGO_LDFLAGS//@PWD@/${root}}"
if [[ -n "${GO_CACHE_SEED:-}" ]]; then # a prebuilt standard-library cache
  mkdir -p "${tmp}/cache"
  cp -R "${root}/${GO_CACHE_SEED}/." "${tmp}/cache/"
  chmod -R u+w "${tmp}/cache"
fi

cd "${root}/${module_dir:-.}"
if [[ -n "${CGO_WHOLE_ARCHIVES:-}" ]]; then
  # Every object of the alwayslink archives, linked once (see rules.bzl).
  read -r -a whole <<<"${CGO_WHOLE_ARCHIVES//@PWD@/${root}}"
  "${CC}" -r -nostdlib -o "${package_dir}/zz_bazel_cdeps.syso" \
    -Wl,--whole-archive "${whole[@]}" -Wl,--no-whole-archive
fi
if [[ "${mode}" == "test" ]]; then
  cmd=(test -c)
else
  cmd=(build)
fi
exec_flags=(-trimpath -buildvcs=false "-ldflags=-buildid=" -o "${root}/${out}")
"${GOROOT}/bin/go" "${cmd[@]}" "${exec_flags[@]}" "$@" "./${package_dir}"
