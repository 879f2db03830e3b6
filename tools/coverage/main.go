// Command coverage renders the LCOV report of `tools/bazel coverage //...` for
// people: a Markdown table of line coverage per directory (docs/coverage.md) and,
// with genhtml (lcov) on PATH, an HTML view.
//
//	tools/bazel coverage //... && tools/bazel run //tools/coverage
//
// Flags: -lcov (default bazel-out/_coverage/_coverage_report.dat), -md
// (default docs/coverage.md; "" for none), -html (default
// bazel-out/_coverage/html; "" for none). Paths are relative to the workspace.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// counts is what LCOV says of a set of files.
type counts struct {
	files                 int
	lines, linesHit       int
	functions, funcsHit   int
	branches, branchesHit int
}

func (c *counts) add(o counts) {
	c.files += o.files
	c.lines += o.lines
	c.linesHit += o.linesHit
	c.functions += o.functions
	c.funcsHit += o.funcsHit
	c.branches += o.branches
	c.branchesHit += o.branchesHit
}

// parse reads an LCOV tracefile into counts per source file.
func parse(r io.Reader) (map[string]counts, error) {
	files := map[string]counts{}
	var name string
	var cur counts
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		key, value, _ := strings.Cut(s.Text(), ":")
		n, _ := strconv.Atoi(value)
		switch key {
		case "SF":
			name, cur = value, counts{files: 1}
		case "LF":
			cur.lines = n
		case "LH":
			cur.linesHit = n
		case "FNF":
			cur.functions = n
		case "FNH":
			cur.funcsHit = n
		case "BRF":
			cur.branches = n
		case "BRH":
			cur.branchesHit = n
		case "end_of_record":
			if name == "" {
				return nil, fmt.Errorf("end_of_record without SF")
			}
			old := files[name]
			if old.files == 0 {
				files[name] = cur
			} else { // the same file twice: keep the larger figures
				old.linesHit = max(old.linesHit, cur.linesHit)
				old.lines = max(old.lines, cur.lines)
				files[name] = old
			}
			name = ""
		}
	}
	return files, s.Err()
}

// byDirectory sums the files' counts per directory.
func byDirectory(files map[string]counts) map[string]counts {
	dirs := map[string]counts{}
	for name, c := range files {
		d := dirs[path.Dir(name)]
		d.add(c)
		dirs[path.Dir(name)] = d
	}
	return dirs
}

func percent(hit, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(hit)/float64(total))
}

// markdown is the summary table, directories sorted, the total last.
func markdown(files map[string]counts, date string) string {
	dirs := byDirectory(files)
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "# Test coverage\n\n")
	fmt.Fprintf(&b, "Line coverage of the C++, Go and Python tests on the CPU backend, one LCOV report from\n")
	fmt.Fprintf(&b, "`tools/bazel coverage //...` (%s), rendered by `tools/bazel run //tools/coverage`\n", date)
	fmt.Fprintf(&b, "(which also writes an HTML view with genhtml to `bazel-out/_coverage/html`). The .cu\n")
	fmt.Fprintf(&b, "files count their host code, compiled as C++ without CUDA; GPU kernels are not measured.\n\n")
	fmt.Fprintf(&b, "| directory | files | lines | covered | functions covered |\n|---|---:|---:|---:|---:|\n")
	var total counts
	for _, d := range names {
		c := dirs[d]
		total.add(c)
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", d, c.files, c.lines, percent(c.linesHit, c.lines), percent(c.funcsHit, c.functions))
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | **%s** | %s |\n", total.files, total.lines, percent(total.linesHit, total.lines), percent(total.funcsHit, total.functions))
	return b.String()
}

func main() {
	lcov := flag.String("lcov", "bazel-out/_coverage/_coverage_report.dat", "the LCOV report")
	md := flag.String("md", "docs/coverage.md", "the Markdown summary to write")
	html := flag.String("html", "bazel-out/_coverage/html", "the HTML view to write with genhtml")
	flag.Parse()
	if ws := os.Getenv("BUILD_WORKSPACE_DIRECTORY"); ws != "" {
		if err := os.Chdir(ws); err != nil {
			fail(err)
		}
	}
	f, err := os.Open(*lcov)
	if err != nil {
		fail(fmt.Errorf("%v (run tools/bazel coverage //... first)", err))
	}
	files, err := parse(f)
	f.Close()
	if err != nil {
		fail(fmt.Errorf("%s: %v", *lcov, err))
	}
	if len(files) == 0 {
		fail(fmt.Errorf("%s holds no source file", *lcov))
	}
	if *md != "" {
		stat, _ := os.Stat(*lcov)
		if err := os.WriteFile(*md, []byte(markdown(files, stat.ModTime().UTC().Format(time.DateOnly))), 0o644); err != nil {
			fail(err)
		}
		fmt.Println("wrote", *md)
	}
	if *html != "" {
		genhtml, err := exec.LookPath("genhtml")
		if err != nil {
			fmt.Fprintln(os.Stderr, "coverage: no genhtml on PATH (Debian's lcov): no HTML view")
			return
		}
		// coverage.py writes FNDA lines without FN ones, which lcov 2 calls a mismatch.
		cmd := exec.Command(genhtml, "--quiet", "--ignore-errors", "source,unmapped,mismatch,inconsistent", "--output-directory", *html, *lcov)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("genhtml: %v", err))
		}
		abs, _ := filepath.Abs(filepath.Join(*html, "index.html"))
		fmt.Println("wrote", abs)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coverage:", err)
	os.Exit(1)
}
