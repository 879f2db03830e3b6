"""go_tool_binary: a Go command of one package needing only std (the builder),
compiled by `go build` in one action with a private cache (no other Go rule
can build it: it is what they run)."""

def _go_tool_binary_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name)
    go = ctx.file._go
    ctx.actions.run_shell(
        command = """set -euo pipefail
root="$PWD"; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$1"; shift
for f in "$@"; do cp -L "$f" "$tmp/"; done
cd "$tmp"
GOROOT="$root/{goroot}" GOCACHE="$tmp/cache" GOPATH="$tmp/path" HOME="$tmp" GOFLAGS= \\
  GO111MODULE=off GOTOOLCHAIN=local GOTELEMETRY=off CGO_ENABLED=0 \\
  "$root/{go}" build -trimpath -ldflags=-buildid= -o "$root/$out" *.go
""".format(go = go.path, goroot = go.dirname.rsplit("/bin", 1)[0]),
        arguments = [out.path] + [f.path for f in ctx.files.srcs],
        inputs = depset(ctx.files.srcs, transitive = [ctx.attr._sdk[DefaultInfo].files]),
        outputs = [out],
        mnemonic = "GoToolBuild",
        progress_message = "Building the Go tool %{label}",
    )
    return [DefaultInfo(executable = out, files = depset([out]))]

go_tool_binary = rule(
    implementation = _go_tool_binary_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".go"], mandatory = True),
        "_go": attr.label(default = Label("@go_sdk//:goroot/bin/go"), allow_single_file = True),
        "_sdk": attr.label(default = Label("@go_sdk//:files")),
    },
    executable = True,
    doc = "A std-only Go command built with `go build` (bootstraps the Go rules' builder).",
)
