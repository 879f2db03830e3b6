package goplscheck

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goCache is Go's build cache for these checks, kept between runs (it is
// content-addressed): a first run compiles the standard library for vet.
var goCache = filepath.Join(os.TempDir(), "cubridge-goplscheck-gocache")

// The packages a Go user opens, as gopls loads them.
var patterns = []string{"./go/cubridge/...", "./go/cmd/..."}

// workspace is the source tree this test's go.mod comes from (runfiles link
// to the source files).
func workspace(t *testing.T) string {
	root := os.Getenv("TEST_SRCDIR")
	if root == "" {
		t.Fatal("TEST_SRCDIR is not set: run me with bazel test")
	}
	main := os.Getenv("TEST_WORKSPACE")
	if main == "" {
		main = "_main"
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, main, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(real)
}

// moduleProxy is the go.mod's module cache in the runfiles, as a file:// proxy.
func moduleProxy(t *testing.T) string {
	var found string
	filepath.WalkDir(os.Getenv("TEST_SRCDIR"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && found == "" && strings.HasSuffix(p, "/cache/download/github.com") {
			found = filepath.Dir(p)
			return fs.SkipAll
		}
		return nil
	})
	if found == "" {
		t.Fatal("no module cache (cache/download) in the runfiles")
	}
	return found
}

func goCommand(t *testing.T, ws, proxy string, args ...string) ([]byte, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go on PATH (tools/bazel's build environment has one; a Go editor needs one too)")
	}
	tmp := t.TempDir()
	cmd := exec.Command(goBin, args...)
	cmd.Dir = ws
	// A plain editor setup: no CGO_CFLAGS, no GOFLAGS, no GOPACKAGESDRIVER.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "CGO_ENABLED=1",
		"GOCACHE=" + goCache, "GOMODCACHE=" + filepath.Join(tmp, "mod"),
		"GOPROXY=file://" + proxy, "GOSUMDB=off", "GOTOOLCHAIN=local", "GOPACKAGESDRIVER=off",
		"GOFLAGS=-mod=mod",
		// Go's defaults plus an inert define that changes with every run: the
		// go command does not track C headers outside the package, so without
		// it a cached result would hide a header that can no longer be found.
		fmt.Sprintf("CGO_CFLAGS=-O2 -g -DCUBRIDGE_GOPLSCHECK_RUN=%d", time.Now().UnixNano()),
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Logf("go %s:\n%s", strings.Join(args, " "), stderr.String())
	}
	return out, err
}

// pkg is what gopls reads of `go list -json`.
type pkg struct {
	ImportPath      string
	CgoFiles        []string
	CompiledGoFiles []string
	Error           *struct{ Err string }
	DepsErrors      []struct{ Err string }
}

func TestGoListLikeGopls(t *testing.T) {
	ws := workspace(t)
	// gopls' own go list call (golang.org/x/tools/go/packages): errors are
	// reported in the JSON (-e), cgo is processed (-compiled), tests included.
	args := append([]string{"list", "-e", "-json=ImportPath,CgoFiles,CompiledGoFiles,Error,DepsErrors",
		"-compiled=true", "-test=true", "-export=false", "-deps=true", "-find=false", "-pgo=off", "--"}, patterns...)
	out, err := goCommand(t, ws, moduleProxy(t), args...)
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	cgo := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		for _, e := range p.DepsErrors {
			t.Errorf("%s: dependency: %s", p.ImportPath, e.Err)
		}
		if strings.HasPrefix(p.ImportPath, "github.com/cubridge/cubridge/go/cubridge") && len(p.CgoFiles) > 0 {
			cgo++
			if len(p.CompiledGoFiles) <= len(p.CgoFiles) {
				t.Errorf("%s: cgo files were not processed (%d compiled Go files)", p.ImportPath, len(p.CompiledGoFiles))
			}
		}
	}
	if cgo == 0 {
		t.Error("go/cubridge listed without its cgo files")
	}
}

func TestGoVet(t *testing.T) {
	ws := workspace(t)
	if _, err := goCommand(t, ws, moduleProxy(t), append([]string{"vet"}, patterns...)...); err != nil {
		t.Fatalf("go vet: %v", err)
	}
}
