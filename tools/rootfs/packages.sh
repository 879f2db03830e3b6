# shellcheck shell=bash
# Package-version resolution for tools/bazel's root filesystem (sourced).
#
# The build environment is pinned (name=version) so that drift is loud, but a
# Debian mirror keeps only the newest version of each package per suite: the
# day a pinned version leaves, a strict pin would stop every fresh machine.
# So each pin resolves like this, over the suites in order of preference
# (the slower-moving one first):
#   1. the pinned version, from the first suite that has it;
#   2. else the current version of the first suite that has the package, said
#      loudly (old -> new);
#   3. else an error naming the package.
# Then the build's own requirements (Bazel 7.7.x, the compiler's major, the
# Python minor, ...) decide: a replaced version that keeps them is fine, one
# that breaks them stops the setup with a message naming both.
#
# Everything here is a function over text, so //tools/rootfs:packages_test runs
# it against fake package lists. Formats:
#   available list: "NAME VERSION SUITE" per line (from apt-cache madison)
#   resolution:     "NAME PINNED RESOLVED SUITE SPEC" per line, SPEC being the
#                   apt-get install argument (NAME=VERSION, or NAME/SUITE when
#                   the version comes from a suite other than the base one)
#   requirements:   "NAME PREFIX ..." : the upstream version of NAME must be
#                   PREFIX or start with "PREFIX."

# apt-cache madison output -> available list.
#   " bazel-bootstrap | 7.7.1+ds-8+b1 | http://host/debian forky/main amd64 Packages"
packages_from_madison() {
  awk -F'|' 'NF >= 3 && $3 ~ /Packages/ {
    gsub(/[ \t]/, "", $1); gsub(/[ \t]/, "", $2)
    n = split($3, f, " "); split(f[2], s, "/")
    print $1, $2, s[1]
  }'
}

# resolve_pins AVAILABLE_FILE "SUITE1 SUITE2 ..." PIN... -> resolution on stdout,
# the loud lines on stderr. The first suite is the base one (debootstrapped).
resolve_pins() {
  local available="$1" suites="$2"
  shift 2
  printf '%s\n' "$@" | awk -v suites="${suites}" -v avail="${available}" '
    BEGIN {
      ns = split(suites, order, " ")
      while ((getline line < avail) > 0) {
        split(line, f, " ")
        if (f[1] == "" || f[3] == "") continue
        has[f[1], f[2], f[3]] = 1
        if (!((f[1], f[3]) in current)) current[f[1], f[3]] = f[2]
      }
      bad = 0
    }
    $0 == "" { next }
    {
      eq = index($0, "=")
      if (eq == 0) { name = $0; pin = "" } else { name = substr($0, 1, eq - 1); pin = substr($0, eq + 1) }
      found = ""
      if (pin != "") for (i = 1; i <= ns && found == ""; i++) if ((name, pin, order[i]) in has) found = order[i]
      if (found != "") {
        spec = (found == order[1]) ? name "=" pin : name "/" found
        print name, pin, pin, found, spec
        next
      }
      for (i = 1; i <= ns && found == ""; i++) if ((name, order[i]) in current) found = order[i]
      if (found == "") {
        printf("error: package %s is in none of the suites %s\n", name, suites) > "/dev/stderr"
        bad = 1
        next
      }
      ver = current[name, found]
      spec = (found == order[1]) ? name "=" ver : name "/" found
      if (pin == "") {
        print name, "-", ver, found, spec
      } else {
        printf("WARNING: pinned %s=%s is gone from the mirror; installing %s %s -> %s (%s)\n",
          name, pin, name, pin, ver, found) > "/dev/stderr"
        print name, pin, ver, found, spec
      }
    }
    END { exit bad }'
}

# The upstream part of a Debian version: no epoch, no Debian revision.
#   1:21.1.8-74 -> 21.1.8    7.7.1+ds-8+b1 -> 7.7.1+ds
upstream_version() {
  local v="${1#*:}"
  [[ "$1" == *:* ]] || v="$1"
  echo "${v%-*}"
}

# version_meets VERSION PREFIX: the upstream version is PREFIX or PREFIX.*
version_meets() {
  local up
  up="$(upstream_version "$1")"
  [[ "${up}" == "$2" || "${up}" == "$2".* || "${up}" == "$2"+* ]]
}

# check_requirements RESOLUTION_OR_INSTALLED_FILE REQUIREMENT...: each
# requirement "NAME PREFIX" must hold for NAME's version (3rd field of a
# resolution line, or 2nd of an installed "NAME VERSION" line). Prints one
# line per failure; returns 1 if any.
check_requirements() {
  local file="$1" req name prefix version bad=0
  shift
  for req in "$@"; do
    read -r name prefix <<<"${req}"
    version="$(awk -v n="${name}" '$1 == n { print (NF >= 5 ? $3 : $2); exit }' "${file}")"
    if [[ -z "${version}" ]]; then
      echo "error: ${name} is not in the package set, and the build needs it at ${prefix}.x"
      bad=1
    elif ! version_meets "${version}" "${prefix}"; then
      echo "error: ${name} ${version} does not meet the build's requirement ${prefix}.x"
      bad=1
    fi
  done
  return "${bad}"
}

# The packages that resolution replaced, as "NAME PINNED RESOLVED" lines.
replaced_pins() {
  awk '$2 != "-" && $2 != $3 { print $1, $2, $3 }' "$1"
}
