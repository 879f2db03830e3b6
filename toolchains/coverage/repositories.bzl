"""lcov_merger: Bazel's LCOV merger, built from Debian's copy of Bazel's source.

`bazel coverage` merges each test's coverage data, and then all tests', with
Bazel's CoverageOutputGenerator, which it downloads (@remote_coverage_tools)
from a server the build machines cannot reach. Debian ships its Java source in
bazel-bootstrap-source and its Java dependencies as packages (tools/bazel's
rootfs has them): this repository compiles it once with the rootfs's JDK and
wraps it as an executable. Without those packages (a machine with network and
another Bazel), it is Bazel's own merger (@bazel_tools//tools/test:lcov_merger).
"""

_SOURCE = "/usr/src/bazel-bootstrap/tools/test/CoverageOutputGenerator/java/com/google/devtools/coverageoutputgenerator"
_JAVA = "/usr/share/java"

# What the merger needs at run time, and what compiling it needs besides
# (AutoValue's annotation processor).
_RUNTIME_JARS = ["guava", "gson", "jcommander"]
_COMPILE_JARS = _RUNTIME_JARS + ["auto-value-annotations", "error_prone_annotations", "jsr305"]
_PROCESSOR_JARS = ["auto-value", "auto-common", "escapevelocity", "javapoet", "guava", "auto-value-annotations"]

_WRAPPER = """#!/usr/bin/env bash
# Bazel's LCOV merger (CoverageOutputGenerator), compiled from Debian's copy of its source.
# Its jars are beside this script: in this repository (the script's real path), or
# in the runfiles of the binary Bazel runs.
set -euo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
for lib in "${here}/lib" "${BASH_SOURCE[0]}.runfiles/$(basename "${here}")/lib" "${RUNFILES_DIR:-/nonexistent}/$(basename "${here}")/lib"; do
  if [[ -f "${lib}/coverage_output_generator.jar" ]]; then
    exec java -cp "$(printf '%s:' "${lib}"/*.jar)" com.google.devtools.coverageoutputgenerator.Main "$@"
  fi
done
echo "lcov_merger: no coverage_output_generator.jar beside ${BASH_SOURCE[0]}" >&2
exit 1
"""

def _lcov_merger_impl(rctx):
    javac = rctx.which("javac")
    if not rctx.path(_SOURCE).exists or not javac or not rctx.which("jar"):
        rctx.file("BUILD.bazel", """\
# No Debian copy of Bazel's source here: Bazel's own merger.
alias(
    name = "lcov_merger",
    actual = "@bazel_tools//tools/test:lcov_merger",
    visibility = ["//visibility:public"],
)
""")
        return
    jar = lambda name: "{}/{}.jar".format(_JAVA, name)
    sources = [str(f) for f in rctx.path(_SOURCE).readdir() if f.basename.endswith(".java")]
    result = rctx.execute([
        javac,
        "-nowarn",
        "-d",
        "classes",
        "-cp",
        ":".join([jar(j) for j in _COMPILE_JARS]),
        "-processorpath",
        ":".join([jar(j) for j in _PROCESSOR_JARS]),
    ] + sorted(sources))
    if result.return_code != 0:
        fail("cubridge: compiling Bazel's CoverageOutputGenerator failed:\n" + result.stderr)
    result = rctx.execute(["jar", "--create", "--date=1980-01-01T00:00:02Z", "--file", "lib/coverage_output_generator.jar", "-C", "classes", "."])
    if result.return_code != 0:
        fail("cubridge: packing CoverageOutputGenerator failed:\n" + result.stderr)
    rctx.delete("classes")
    for name in _RUNTIME_JARS:
        rctx.symlink(jar(name), "lib/{}.jar".format(name))
    rctx.file("lcov_merger.sh", _WRAPPER, executable = True)
    rctx.file("BUILD.bazel", """\
# Bazel's LCOV merger, compiled from Debian's bazel-bootstrap-source (cubridge's lcov_merger rule).
sh_binary(
    name = "lcov_merger",
    srcs = ["lcov_merger.sh"],
    data = glob(["lib/*.jar"]),
    visibility = ["//visibility:public"],
)
""")

lcov_merger = repository_rule(
    implementation = _lcov_merger_impl,
    local = True,
    doc = "Bazel's LCOV merger from Debian's bazel-bootstrap-source (or Bazel's own when that is absent).",
)
