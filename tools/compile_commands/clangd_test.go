package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runfilesRoot is the runfiles directory holding one directory per repository.
func runfilesRoot(t *testing.T) string {
	for _, v := range []string{"RUNFILES_DIR", "TEST_SRCDIR"} {
		if d := os.Getenv(v); d != "" {
			return d
		}
	}
	t.Fatal("no RUNFILES_DIR or TEST_SRCDIR: run me with bazel test")
	return ""
}

// fakeExecRoot lays the runfiles out as Bazel's execution root (the main
// repository at the top, others under external/, generated files under
// bazel-out/CFG/bin), so that the recorded command lines work unchanged.
func fakeExecRoot(t *testing.T, runfiles, main string, configs []string) string {
	root := t.TempDir()
	link := func(target, name string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	repos, err := os.ReadDir(runfiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range repos {
		if r.Name() != main {
			link(filepath.Join(runfiles, r.Name()), filepath.Join(root, "external", r.Name()))
		}
	}
	top, err := os.ReadDir(filepath.Join(runfiles, main))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		if e.Name() != "external" {
			link(filepath.Join(runfiles, main, e.Name()), filepath.Join(root, e.Name()))
		}
	}
	for _, c := range configs {
		link(filepath.Join(runfiles, main), filepath.Join(root, "bazel-out", c, "bin"))
	}
	return root
}

var configPattern = regexp.MustCompile(`bazel-out/([^/]+)/bin`)

func TestClangdCheck(t *testing.T) {
	clangd := os.Getenv("CLANGD")
	if clangd == "" {
		var err error
		if clangd, err = exec.LookPath("clangd"); err != nil {
			t.Fatal("clangd not found on PATH (tools/bazel's build environment has it; elsewhere install clangd or set CLANGD)")
		}
	}
	runfiles := runfilesRoot(t)
	main := os.Getenv("TEST_WORKSPACE")
	if main == "" {
		main = "_main"
	}
	var argvs [][]string
	configs := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(runfiles, main), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".compile_commands.json") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var actions []struct{ Arguments []string }
		if err := json.Unmarshal(data, &actions); err != nil {
			return err
		}
		for _, a := range actions {
			argvs = append(argvs, a.Arguments)
			for _, m := range configPattern.FindAllStringSubmatch(strings.Join(a.Arguments, " "), -1) {
				configs[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []string
	for c := range configs {
		cfgs = append(cfgs, c)
	}
	root := fakeExecRoot(t, runfiles, main, cfgs)
	entries := FromArgvs(argvs, root, false)
	dbDir := t.TempDir()
	if err := write(filepath.Join(dbDir, "compile_commands.json"), entries); err != nil {
		t.Fatal(err)
	}
	// One file of each kind, the first in sorted order.
	picked := map[string]string{}
	for _, e := range entries {
		if ext := filepath.Ext(e.File); picked[ext] == "" {
			picked[ext] = e.File
		}
	}
	for _, ext := range []string{".cu", ".c", ".cc"} {
		file := picked[ext]
		if ext == ".cu" && os.Getenv("CUBRIDGE_CUDA_ENABLED") == "0" {
			// Without CUDA a .cu file compiles as C++ through a .cc that includes it
			// (cubridge's cuda_library): nvcc's command lines are not there to check.
			t.Run(ext, func(t *testing.T) { t.Skip("no CUDA in this build (--@rules_cuda//cuda:enable=false)") })
			continue
		}
		if file == "" {
			t.Errorf("no %s file among the compile commands (%s)", ext, summary(entries))
			continue
		}
		t.Run(ext, func(t *testing.T) {
			cmd := exec.Command(clangd, "--check="+filepath.Join(root, file), "--compile-commands-dir="+dbDir, "--check-locations=false", "--log=error")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			out, err := cmd.CombinedOutput()
			var errors []string
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "E[") {
					errors = append(errors, line)
				}
			}
			if err != nil || len(errors) > 0 {
				t.Errorf("clangd --check=%s: %v\n%s\n--- full output:\n%s", file, err, strings.Join(errors, "\n"), out)
				return
			}
			t.Logf("clangd --check=%s: no errors", file)
		})
	}
}
