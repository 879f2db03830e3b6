# shellcheck shell=bash
# A Bazel registry on disk for the offline build (sourced by tools/bazel).
#
# MODULE.bazel asks for rules_go, gazelle, rules_cuda and rules_python at their
# released versions, as a user of the public registry writes them. With no
# registry reachable, these come from the release source archives of the
# offline mirror (../shared/bazel-modules: NAME-VERSION.tar.gz, one top
# directory NAME). This writes the smallest registry that serves them:
#   bazel_registry.json
#   modules/NAME/metadata.json
#   modules/NAME/VERSION/MODULE.bazel   the archive's own, version stamped
#   modules/NAME/VERSION/source.json    file:// URL of the archive, integrity
# so versions stay real and single_version_override(patches = ...) applies.
# The archives' MODULE.bazel files carry their repository's unstamped version
# (0.0.0, 0.999.0); the public registry stamps the release on publishing, and
# so does this.

# stamp_module_version VERSION < MODULE.bazel > MODULE.bazel: the version
# attribute of the module() call (the file's first `version =` line inside it).
stamp_module_version() {
  awk -v v="$1" '
    /^module\(/ { inside = 1 }
    inside && !done && /^[ \t]*version[ \t]*=/ {
      sub(/"[^"]*"/, "\"" v "\""); done = 1
    }
    inside && /^\)/ { inside = 0 }
    { print }'
}

# sri_sha256 FILE: the file's integrity in Subresource Integrity form.
sri_sha256() {
  local hex
  hex="$(sha256sum "$1" | cut -d' ' -f1)"
  # hex -> bytes with printf's \xHH escapes (no xxd on a bare machine)
  # shellcheck disable=SC2001 # sed: one \x per byte pair, which ${//} cannot say
  echo "sha256-$(printf '%b' "$(sed 's/../\\x&/g' <<<"${hex}")" | base64 -w0)"
}

# registry_entry OUT NAME VERSION MODULE_FILE SOURCE_JSON: one module version.
registry_entry() {
  local out="$1" name="$2" version="$3" dir="$1/modules/$2/$3"
  mkdir -p "${dir}"
  stamp_module_version "${version}" <"$4" >"${dir}/MODULE.bazel" || return 1
  echo "$5" >"${dir}/source.json"
  echo "${version}" >>"${out}/modules/${name}/versions"
}

# write_registry MIRROR_DIR OUT_DIR [NAME=VERSION=DIR=MODULE_FILE ...]: the
# registry for every NAME-VERSION.tar.gz of MIRROR_DIR, written to OUT_DIR
# (replaced), plus local module directories (source type local_path): DIR as
# Bazel sees it, MODULE_FILE its MODULE.bazel as this shell reads it. Fails when
# the mirror holds no archive.
write_registry() {
  local mirror="$1" out="$2" archive base name version dir module_file count=0 local_module
  shift 2
  rm -rf "${out}.tmp"
  mkdir -p "${out}.tmp/modules"
  echo '{}' >"${out}.tmp/bazel_registry.json"
  for archive in "${mirror}"/*.tar.gz; do
    [[ -f "${archive}" ]] || continue
    base="$(basename "${archive}" .tar.gz)"
    name="${base%-*}"
    version="${base##*-}"
    registry_entry "${out}.tmp" "${name}" "${version}" <(tar -xzOf "${archive}" "${name}/MODULE.bazel") \
      "$(printf '{\n  "url": "file://%s",\n  "integrity": "%s",\n  "strip_prefix": "%s"\n}' \
        "$(readlink -f "${archive}")" "$(sri_sha256 "${archive}")" "${name}")" || return 1
    count=$((count + 1))
  done
  [[ ${count} -gt 0 ]] || {
    echo "no NAME-VERSION.tar.gz archives in ${mirror}" >&2
    return 1
  }
  for local_module in "$@"; do
    IFS='=' read -r name version dir module_file <<<"${local_module}"
    registry_entry "${out}.tmp" "${name}" "${version}" "${module_file}" \
      "$(printf '{\n  "type": "local_path",\n  "path": "%s"\n}' "${dir}")" || return 1
  done
  for dir in "${out}.tmp"/modules/*; do
    printf '{\n  "versions": [%s]\n}\n' "$(sort -V "${dir}/versions" | sed 's/.*/"&"/' | paste -sd,)" >"${dir}/metadata.json"
    rm "${dir}/versions"
  done
  rm -rf "${out}"
  mv "${out}.tmp" "${out}"
}

# The Go SDK in MODULE.bazel is the golang.org/toolchain module of the Go module
# proxy, named by a placeholder host (goproxy.invalid) since no registry's host is
# written in this repository. write_downloader_config GOPROXY prints Bazel's
# downloader config that sends the placeholder to the first http(s) proxy of a
# GOPROXY list ("https://a,https://b|direct"), as `go env GOPROXY` gives it.
write_downloader_config() {
  local entry proxy=""
  for entry in $(tr ',|' '  ' <<<"$1"); do
    case "${entry}" in
    http://* | https://*)
      proxy="${entry%/}"
      break
      ;;
    esac
  done
  echo "# Written by tools/bazel from GOPROXY=$1"
  if [[ -n "${proxy}" ]]; then
    echo "rewrite goproxy.invalid/(.*) ${proxy#*://}/\$1"
  fi
}
