// Command report regenerates bench/results from a run on the machine at hand:
//
//	tools/bazel run //bench:report                        # full run, into bench/results
//	tools/bazel run //bench:report -- --quick             # smoke run (bench.py and gobench -quick)
//	tools/bazel run //bench:report -- --out=/tmp/r -- --libs cubridge,numpy --sizes 1e6,1e7
//
// Steps, each said as it starts ([report i/4]); bench.py and gobench print a
// progress line per case as they go:
//  1. bench/bench.py (cubridge from this build, CuPy/torch/NumPy when installed) -> bench.json
//  2. bench/gobench -> gobench.json, gobench.txt
//  3. bench/plot.py -> bench.png (matplotlib; when the Python at hand lacks it, it is
//     installed with pip into a virtual environment in the user's cache, once)
//  4. bench/report.py -> bench.md (the tables, under a header naming the machine and run)
//
// Options before a lone "--": --out=DIR (default: bench/results of the workspace),
// --quick, --python=PYTHON (default python3), --skip-go; after it: bench.py's own options.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type options struct {
	out, python    string
	quick, skipGo  bool
	benchArgs      []string
	workspace      string
	runfiles, main string
}

func parseArgs(args []string, getenv func(string) string) (options, error) {
	o := options{python: "python3", workspace: getenv("BUILD_WORKSPACE_DIRECTORY")}
	for i, a := range args {
		switch {
		case a == "--":
			o.benchArgs = append(o.benchArgs, args[i+1:]...)
			return o, o.finish()
		case strings.HasPrefix(a, "--out="):
			o.out = strings.TrimPrefix(a, "--out=")
		case strings.HasPrefix(a, "--python="):
			o.python = strings.TrimPrefix(a, "--python=")
		case a == "--quick":
			o.quick = true
		case a == "--skip-go":
			o.skipGo = true
		default:
			return o, fmt.Errorf("unknown option %q (bench.py's options go after --)", a)
		}
	}
	return o, o.finish()
}

func (o *options) finish() error {
	if o.out == "" {
		if o.workspace == "" {
			return fmt.Errorf("no --out and no BUILD_WORKSPACE_DIRECTORY: run me with `bazel run //bench:report`")
		}
		o.out = filepath.Join(o.workspace, "bench", "results")
	} else if !filepath.IsAbs(o.out) && o.workspace != "" {
		o.out = filepath.Join(o.workspace, o.out)
	}
	if o.quick {
		o.benchArgs = append([]string{"--quick"}, o.benchArgs...)
	}
	return nil
}

func main() {
	o, err := parseArgs(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// runfile is a file of this binary's runfiles (main repository).
func runfile(rel string) (string, error) {
	dirs := []string{os.Getenv("RUNFILES_DIR")}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, exe+".runfiles")
	}
	dirs = append(dirs, os.Args[0]+".runfiles")
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, repo := range []string{"_main", "cubridge"} {
			p := filepath.Join(d, repo, rel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s is not in the runfiles (run me with bazel run)", rel)
}

func step(i int, what string) { fmt.Fprintf(os.Stderr, "[report %d/4] %s\n", i, what) }

func command(name string, args []string, env []string, stdout io.Writer) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = stdout, os.Stderr
	return cmd
}

func run(o options) error {
	start := time.Now()
	files := map[string]string{}
	for _, f := range []string{"bench/bench.py", "bench/plot.py", "bench/report.py", "bench/gobench/gobench", "python/cubridge/__init__.py"} {
		p, err := runfile(f)
		if err != nil {
			return err
		}
		files[f] = p
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	pythonPath := "PYTHONPATH=" + filepath.Dir(filepath.Dir(files["python/cubridge/__init__.py"]))

	step(1, fmt.Sprintf("bench.py %s -> %s/bench.json", strings.Join(o.benchArgs, " "), o.out))
	args := append([]string{files["bench/bench.py"], "--out", o.out}, o.benchArgs...)
	table, err := os.Create(filepath.Join(o.out, "bench.txt"))
	if err != nil {
		return err
	}
	defer table.Close()
	if err := command(o.python, args, []string{pythonPath}, io.MultiWriter(os.Stdout, table)).Run(); err != nil {
		return fmt.Errorf("bench.py: %v", err)
	}

	goJSON := filepath.Join(o.out, "gobench.json")
	if o.skipGo {
		step(2, "gobench skipped (--skip-go)")
	} else {
		step(2, "gobench -> "+goJSON)
		gargs := []string{"-out", goJSON, "-no-json"}
		if o.quick {
			gargs = append(gargs, "-quick")
		}
		txt, err := os.Create(filepath.Join(o.out, "gobench.txt"))
		if err != nil {
			return err
		}
		defer txt.Close()
		if err := command(files["bench/gobench/gobench"], gargs, nil, io.MultiWriter(os.Stdout, txt)).Run(); err != nil {
			return fmt.Errorf("gobench: %v", err)
		}
	}

	step(3, "plot.py -> "+filepath.Join(o.out, "bench.png"))
	python, err := withMatplotlib(o.python)
	if err != nil {
		return err
	}
	if err := command(python, []string{files["bench/plot.py"], filepath.Join(o.out, "bench.json"), "-o", filepath.Join(o.out, "bench.png")}, nil, os.Stdout).Run(); err != nil {
		return fmt.Errorf("plot.py: %v", err)
	}

	step(4, "report.py -> "+filepath.Join(o.out, "bench.md"))
	rargs := []string{files["bench/report.py"], filepath.Join(o.out, "bench.json")}
	if _, err := os.Stat(goJSON); err == nil && !o.skipGo {
		rargs = append(rargs, "--gobench", goJSON)
	}
	var md strings.Builder
	if err := command(o.python, rargs, nil, &md).Run(); err != nil {
		return fmt.Errorf("report.py: %v", err)
	}
	header := fmt.Sprintf("# Benchmark tables\n\nGenerated by `bazel run //bench:report%s` on %s (%s), %s; bench.py options: `%s`.\nRaw data: `bench.json`, `gobench.json`; plot: `bench.png`; method: bench/README.md.\n\n",
		map[bool]string{true: " -- --quick", false: ""}[o.quick], hostname(), machineDevice(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(o.benchArgs, " "))
	if err := os.WriteFile(filepath.Join(o.out, "bench.md"), []byte(header+md.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "[report] done in %s: %s/{bench.json,bench.txt,gobench.json,gobench.txt,bench.png,bench.md}\n", time.Since(start).Round(time.Second), o.out)
	return nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return h
}

// machineDevice names the GPUs (nvidia-smi), or says there is none.
func machineDevice() string {
	out, err := exec.Command("nvidia-smi", "--query-gpu=name", "--format=csv,noheader").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return "no GPU: CPU backend"
	}
	return strings.Join(strings.Split(strings.TrimSpace(string(out)), "\n"), ", ")
}

// withMatplotlib is a Python that imports matplotlib: python itself, else a
// virtual environment (with python's own packages) in the user's cache where
// pip installs it once, as the machine's pip is configured.
func withMatplotlib(python string) (string, error) {
	if exec.Command(python, "-c", "import matplotlib").Run() == nil {
		return python, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%s has no matplotlib and there is no cache directory for a virtual environment: %v", python, err)
	}
	venv := filepath.Join(cache, "cubridge", "bench-venv")
	vpython := filepath.Join(venv, "bin", "python")
	if exec.Command(vpython, "-c", "import matplotlib").Run() == nil {
		return vpython, nil
	}
	fmt.Fprintf(os.Stderr, "[report] %s has no matplotlib: installing it with pip into %s (once)\n", python, venv)
	if err := command(python, []string{"-m", "venv", "--system-site-packages", venv}, nil, os.Stderr).Run(); err != nil {
		return "", fmt.Errorf("python -m venv %s: %v", venv, err)
	}
	if err := command(vpython, []string{"-m", "pip", "install", "-q", "matplotlib"}, nil, os.Stderr).Run(); err != nil {
		return "", fmt.Errorf("pip install matplotlib (needed for bench.png): %v", err)
	}
	return vpython, nil
}
