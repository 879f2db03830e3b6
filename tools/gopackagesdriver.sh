#!/usr/bin/env bash
# Go editors (gopls) on Bazel's view of the packages: rules_go's
# gopackagesdriver, run through tools/bazel. Point gopls at it:
#   GOPACKAGESDRIVER=/path/to/cubridge/tools/gopackagesdriver.sh
# (docs/building.md, "Editors"). The driver builds with Bazel and reports the
# packages as rules_go compiles them: cgo files, generated code, Bazel-only deps.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export GOPACKAGESDRIVER_BAZEL="${here}/bazel"
exec "${here}/bazel" run --tool_tag=gopackagesdriver -- @rules_go//go/tools/gopackagesdriver "$@"
