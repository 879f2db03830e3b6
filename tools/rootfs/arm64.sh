# shellcheck shell=bash
# An arm64 root filesystem for the Python side of --config=aarch64 (sourced by
# tools/bazel; runs as root on the build machine).
#
# Tests of an aarch64 build run under qemu-user on this x86-64 machine. C++ and
# Go test binaries need only the cross compiler's own sysroot; the Python tests
# need an aarch64 CPython (and its headers: pyconfig.h differs per architecture).
# This is Debian's, fetched by debootstrap's first stage (--foreign) from the
# same apt mirror, verified against the suite's signed index, then unpacked;
# nothing of them runs here (no second stage), so no binfmt_misc is needed. qemu-aarch64 with QEMU_LD_PREFIX=<this root> runs its python3.14.
# //toolchains/python:linux_aarch64 is the toolchain made from it; tools/bazel
# passes its path to Bazel as CUBRIDGE_AARCH64_ROOT.
#
# Made once, on the first command line that names aarch64 (--config=aarch64,
# --platforms=//platforms:linux_aarch64), about 1 minute and 250 MB.

# What the Python toolchain needs: the interpreter, its headers and venv's pip,
# of the x86-64 rootfs's CPython minor (python3 in tools/bazel's PACKAGES).
# debootstrap takes the suite's current versions (the package names fix the
# minor); they are recorded in <root>.versions, and the root is kept until this
# list or ARM64_REVISION changes.
readonly ARM64_PACKAGES=(
  python3.14
  libpython3.14-dev
  python3.14-venv
)
readonly ARM64_REVISION="1"

# wants_arm64 ARGS...: true when the command line names aarch64.
wants_arm64() {
  local arg
  for arg in "$@"; do
    [[ "${arg}" == *aarch64* ]] && return 0
  done
  return 1
}

# arm64_root_path CACHE SUITE: where the root for the current package list lives.
arm64_root_path() {
  local hash
  hash="$(printf '%s\n' "${ARM64_REVISION}" "$2" "${ARM64_PACKAGES[@]}" | sha256sum | cut -c1-12)"
  echo "$1/arm64-$2-${hash}"
}

# setup_arm64_root ROOT SUITE MIRROR LOG: debootstrap --foreign of arm64 into
# ROOT (atomically: ROOT.partial, then renamed), its package versions in
# ROOT.versions.
setup_arm64_root() {
  local root="$1" suite="$2" mirror="$3" log="$4" tmp="$1.partial" script=() keyring=()
  rm -rf "${tmp}"
  [[ -e "/usr/share/debootstrap/scripts/${suite}" ]] || script=(/usr/share/debootstrap/scripts/sid)
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] &&
    keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
  local include
  include="$(printf '%s,' "${ARM64_PACKAGES[@]}")"
  if ! debootstrap --arch=arm64 --foreign --variant=minbase --include="${include%,}" \
    "${keyring[@]}" "${suite}" "${tmp}" "${mirror}" "${script[@]}" >"${log}" 2>&1; then
    # As for the x86-64 rootfs: the host's keyring may predate the suite's keys.
    rm -rf "${tmp}"
    debootstrap --arch=arm64 --foreign --variant=minbase --include="${include%,}" --no-check-gpg \
      "${suite}" "${tmp}" "${mirror}" "${script[@]}" >"${log}" 2>&1 || return 1
  fi
  # The first stage unpacks only the required packages; the others (python3.14
  # and its dependencies) are fetched for a second stage that would run them
  # (maintainer scripts): they are only unpacked here.
  local deb base
  for deb in "${tmp}"/var/cache/apt/archives/*.deb; do
    dpkg-deb --extract "${deb}" "${tmp}" >>"${log}" 2>&1 || {
      echo "arm64 root: unpacking ${deb} failed" >>"${log}"
      return 1
    }
  done
  # "NAME VERSION" of what was unpacked, from the .deb files' names.
  for deb in "${tmp}"/var/cache/apt/archives/*.deb; do
    base="$(basename "${deb}" .deb)"
    IFS=_ read -r name version _ <<<"${base}"
    echo "${name} ${version//%3a/:}"
  done | sort >"${tmp}.versions"
  local name
  for name in "${ARM64_PACKAGES[@]}"; do
    grep -q "^${name} " "${tmp}.versions" || {
      echo "arm64 root: ${name} was not unpacked" >>"${log}"
      return 1
    }
  done
  [[ -x "${tmp}/usr/bin/python3.14" ]] || return 1
  rm -f "${tmp}"/var/cache/apt/archives/*.deb
  mv "${tmp}.versions" "${root}.versions"
  mv "${tmp}" "${root}"
}
