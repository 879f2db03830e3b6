// Command buildperf measures cubridge's incremental builds and writes the
// figures to bench/results/buildperf.{md,json}:
//
//   - a no-op `tools/bazel test --config=ci //...` (it must execute nothing);
//   - a one-line edit of the leaf Go package go/cubridge: the Go packages
//     compiled (only that one) and the wall time of its test;
//   - a one-line edit of cuda/src/elementwise.cu: the actions it causes.
//
// Run from the repository root: go run ./tools/buildperf [-check] [-skip-cu]
// -check exits non-zero when the no-op executes an action or the leaf edit
// compiles any other Go package.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

var (
	verbose  = flag.Bool("v", false, "show Bazel's output")
	check    = flag.Bool("check", false, "fail if the no-op runs an action or the leaf edit compiles another Go package")
	skipRepo = flag.Bool("skip-repo", false, "skip the measurements of this repository")
	skipCu   = flag.Bool("skip-cu", false, "skip the .cu edit")
	outBase  = flag.String("out", "bench/results/buildperf", "results file, without extension (.md and .json written)")
)

const leafPkg = "github.com/cubridge/cubridge/go/cubridge"

type results struct {
	Date     string   `json:"date"`
	Machine  string   `json:"machine"`
	Repo     []*run   `json:"repo,omitempty"`
	Figures  []string `json:"figures"`
	Failures []string `json:"failures,omitempty"`
}

func main() {
	flag.Parse()
	repo, err := os.Getwd()
	if err != nil {
		fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "tools/bazel")); err != nil {
		fatal(fmt.Errorf("run from the repository root (no tools/bazel here)"))
	}
	res := &results{Date: time.Now().UTC().Format(time.RFC3339), Machine: machine()}
	if !*skipRepo {
		if err := measureRepo(repo, res); err != nil {
			fatal(err)
		}
	}
	if err := write(repo, res); err != nil {
		fatal(err)
	}
	if *check && len(res.Failures) > 0 {
		fatal(fmt.Errorf("%s", strings.Join(res.Failures, "; ")))
	}
}

func measureRepo(repo string, res *results) error {
	bz := filepath.Join(repo, "tools/bazel")
	tmp, err := os.MkdirTemp(repo, ".buildperf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ci := []string{"--config=ci"}
	// After an edit: every action the edit needs runs (no disk or remote cache),
	// so the counts and times are those of a first edit.
	fresh := []string{"--config=ci", "--noremote_accept_cached", "--disk_cache="}
	step := func(name string, args ...string) (*run, error) {
		r, err := bazel(name, bz, repo, tmp, args...)
		if err == nil {
			res.Repo = append(res.Repo, r)
		}
		return r, err
	}
	if _, err := step("warm-up: test //...", append([]string{"test"}, append(ci, "//...")...)...); err != nil {
		return err
	}
	noop, err := step("no-op: test //...", append([]string{"test"}, append(ci, "//...")...)...)
	if err != nil {
		return err
	}
	res.Figures = append(res.Figures, fmt.Sprintf("no-op `test //...`: %d actions executed, %.1f s wall (%s)", noop.Executed, noop.WallS, noop.Summary))
	if noop.Executed != 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("the no-op test //... executed %d actions", noop.Executed))
	}

	// One-line edit of the leaf Go package (a comment at the end of doc.go).
	restore, err := appendLine(filepath.Join(repo, "go/cubridge/doc.go"), "// buildperf: a one-line edit "+nonce())
	if err != nil {
		return err
	}
	t, err1 := step("Go leaf edit: test //go/cubridge:cubridge_test", append([]string{"test"}, append(fresh, "//go/cubridge:cubridge_test")...)...)
	b, err2 := step("Go leaf edit: build //... (the rest)", append([]string{"build"}, append(fresh, "//...")...)...)
	if err := restore(); err != nil {
		return err
	}
	if err1 != nil || err2 != nil {
		return fmt.Errorf("%v %v", err1, err2)
	}
	compiled := append(append([]string{}, t.Compiled...), b.Compiled...)
	var others []string
	for _, c := range compiled {
		if !strings.HasPrefix(c, leafPkg+" ") && !strings.HasPrefix(c, leafPkg+"_test ") {
			others = append(others, c)
		}
	}
	res.Figures = append(res.Figures, fmt.Sprintf("one-line edit in go/cubridge: test of the package %.1f s wall; Go compile actions %d, all of go/cubridge (%s); links %d",
		t.WallS, len(compiled), strings.Join(compiled, ", "), t.ByMnemonic["GoLink"]+b.ByMnemonic["GoLink"]))
	if len(others) > 0 {
		res.Failures = append(res.Failures, "the leaf edit compiled other Go packages: "+strings.Join(others, ", "))
	}
	if _, err := bazel("restore", bz, repo, tmp, append([]string{"build"}, append(ci, "//...")...)...); err != nil {
		return err
	}

	if *skipCu {
		return nil
	}
	// One-line edit of a .cu file.
	restore, err = appendLine(filepath.Join(repo, "cuda/src/elementwise.cu"), "// buildperf: a one-line edit "+nonce())
	if err != nil {
		return err
	}
	c, err := step("cu edit: build //...", append([]string{"build"}, append(fresh, "//...")...)...)
	if rerr := restore(); rerr != nil {
		return rerr
	}
	if err != nil {
		return err
	}
	res.Figures = append(res.Figures, fmt.Sprintf("one-line edit in cuda/src/elementwise.cu: build //... %.1f s, %d actions executed %v", c.WallS, c.Executed, c.ByMnemonic))
	_, err = bazel("restore", bz, repo, tmp, append([]string{"build"}, append(ci, "//...")...)...)
	return err
}

func write(repo string, res *results) error {
	base := resultsBase(repo)
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", append(data, '\n'), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Build performance (tools/buildperf)\n\n%s, %s.\n\n", res.Date, res.Machine)
	for _, f := range res.Figures {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	for _, f := range res.Failures {
		fmt.Fprintf(&b, "- **FAILED**: %s\n", f)
	}
	fmt.Fprintf(&b, "\n| step | wall (s) | actions executed | by mnemonic | process summary |\n|---|---|---|---|---|\n")
	for _, r := range res.Repo {
		fmt.Fprintf(&b, "| %s | %.1f | %d | %v | %s |\n", r.Name, r.WallS, r.Executed, r.ByMnemonic, strings.TrimPrefix(r.Summary, "INFO: "))
	}
	fmt.Fprintf(os.Stderr, "buildperf: wrote %s.md and %s.json\n", base, base)
	return os.WriteFile(base+".md", []byte(b.String()), 0o644)
}

func resultsBase(repo string) string {
	if filepath.IsAbs(*outBase) {
		return *outBase
	}
	return filepath.Join(repo, *outBase)
}

// nonce makes each edit new: an edit seen before would be an action-cache hit.
func nonce() string { return fmt.Sprintf("X%d", time.Now().UnixNano()) }

func machine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("%d CPUs, %s/%s, load average %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, strings.Join(strings.Fields(string(load))[:3], " "))
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "buildperf: %v\n", err)
	os.Exit(1)
}
