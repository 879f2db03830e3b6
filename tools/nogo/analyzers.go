//go:build tools

// Package nogo only records, in go.mod, the golang.org/x/tools version whose
// analyzers nogo runs (//:nogo lists the same passes: those of go vet). rules_go
// 0.50.1 brings x/tools v0.15.0, whose export data reader predates Go 1.24's
// (every analyzer then skipped packages: "unsupported version: 2"). Never built:
// the build tag keeps it out of every build and of gazelle's BUILD files.
package nogo

import (
	_ "golang.org/x/tools/go/analysis/passes/asmdecl"
	_ "golang.org/x/tools/go/analysis/passes/assign"
	_ "golang.org/x/tools/go/analysis/passes/atomic"
	_ "golang.org/x/tools/go/analysis/passes/bools"
	_ "golang.org/x/tools/go/analysis/passes/buildtag"
	_ "golang.org/x/tools/go/analysis/passes/composite"
	_ "golang.org/x/tools/go/analysis/passes/copylock"
	_ "golang.org/x/tools/go/analysis/passes/directive"
	_ "golang.org/x/tools/go/analysis/passes/errorsas"
	_ "golang.org/x/tools/go/analysis/passes/framepointer"
	_ "golang.org/x/tools/go/analysis/passes/httpresponse"
	_ "golang.org/x/tools/go/analysis/passes/ifaceassert"
	_ "golang.org/x/tools/go/analysis/passes/loopclosure"
	_ "golang.org/x/tools/go/analysis/passes/lostcancel"
	_ "golang.org/x/tools/go/analysis/passes/nilfunc"
	_ "golang.org/x/tools/go/analysis/passes/printf"
	_ "golang.org/x/tools/go/analysis/passes/shift"
	_ "golang.org/x/tools/go/analysis/passes/sigchanyzer"
	_ "golang.org/x/tools/go/analysis/passes/slog"
	_ "golang.org/x/tools/go/analysis/passes/stdmethods"
	_ "golang.org/x/tools/go/analysis/passes/stringintconv"
	_ "golang.org/x/tools/go/analysis/passes/structtag"
	_ "golang.org/x/tools/go/analysis/passes/testinggoroutine"
	_ "golang.org/x/tools/go/analysis/passes/tests"
	_ "golang.org/x/tools/go/analysis/passes/timeformat"
	_ "golang.org/x/tools/go/analysis/passes/unmarshal"
	_ "golang.org/x/tools/go/analysis/passes/unreachable"
	_ "golang.org/x/tools/go/analysis/passes/unsafeptr"
	_ "golang.org/x/tools/go/analysis/passes/unusedresult"
)
