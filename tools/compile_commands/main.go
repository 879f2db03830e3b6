// Command compile_commands writes compile_commands.json (clang's JSON
// compilation database) at the top of the workspace for every C, C++ and CUDA
// compile action of the build, so that clangd understands the tree:
//
//	tools/bazel run //tools:compile_commands                  # //..., default flags
//	tools/bazel run //tools:compile_commands -- --config=ci   # the flags you build with
//	tools/bazel run //tools:compile_commands -- --config=ci //cuda/...
//
// It asks Bazel (bazel aquery) for the CppCompile and CudaCompile actions of
// the targets, turns nvcc's command lines into clang's CUDA mode
// (--cuda-path, --cuda-gpu-arch, the hermetic toolkit's include directories)
// and writes one entry per source file of this repository, run from Bazel's
// execution root with external repositories named by their path in the
// output base. Build the targets once first so that generated files exist.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

const usage = `usage: bazel run //tools:compile_commands -- [--external] [--out=FILE] [BAZEL_FLAGS...] [TARGET_PATTERNS...]
  --external    also write entries for sources of external repositories
  --out=FILE    output file (default: compile_commands.json at the top of the workspace)
  BAZEL_FLAGS   flags for bazel aquery, e.g. --config=ci (those you build with)
  TARGET_PATTERNS  default //...
`

func main() {
	external, out, rest := false, "", []string{}
	for _, a := range os.Args[1:] {
		switch {
		case a == "--external" || a == "-external":
			external = true
		case strings.HasPrefix(a, "--out="):
			out = strings.TrimPrefix(a, "--out=")
		case a == "--help" || a == "-h":
			fmt.Fprint(os.Stderr, usage)
			return
		default:
			rest = append(rest, a)
		}
	}
	if err := run(external, out, rest); err != nil {
		fmt.Fprintln(os.Stderr, "compile_commands:", err)
		os.Exit(1)
	}
}

func run(external bool, out string, args []string) error {
	ws := os.Getenv("BUILD_WORKSPACE_DIRECTORY")
	if ws == "" {
		return fmt.Errorf("run me with `bazel run //tools:compile_commands` (BUILD_WORKSPACE_DIRECTORY is not set)")
	}
	var flags, patterns []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		} else {
			patterns = append(patterns, a)
		}
	}
	if len(patterns) == 0 {
		patterns = []string{"//..."}
	}
	bazel := bazelCommand(ws)
	info, err := bazelOutput(ws, bazel, append(append([]string{"info"}, flags...), "execution_root", "output_base"))
	if err != nil {
		return err
	}
	execRoot, outputBase := "", ""
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			switch k {
			case "execution_root":
				execRoot = v
			case "output_base":
				outputBase = v
			}
		}
	}
	if execRoot == "" || outputBase == "" {
		return fmt.Errorf("bazel info gave no execution_root/output_base:\n%s", info)
	}
	// The targets' own actions cover every source of the patterns; their
	// dependencies' only matter for external sources.
	universe := strings.Join(patterns, " + ")
	if external {
		universe = "deps(" + universe + ")"
	}
	query := fmt.Sprintf(`mnemonic("CppCompile|CudaCompile", %s)`, universe)
	fmt.Fprintf(os.Stderr, "compile_commands: bazel aquery '%s'\n", query)
	raw, err := bazelOutput(ws, bazel, append(append([]string{"aquery"}, flags...), "--output=jsonproto", "--include_artifacts=false", query))
	if err != nil {
		return err
	}
	entries, err := fromAquery([]byte(raw), execRoot, outputBase, external)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(ws, "compile_commands.json")
	}
	if err := write(out, entries); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "compile_commands: wrote %s: %s\n", out, summary(entries))
	return nil
}

// bazelCommand is the workspace's tools/bazel when there is one (it knows how
// to reach the offline Bazel), else bazel on PATH.
func bazelCommand(ws string) string {
	if p := filepath.Join(ws, "tools", "bazel"); isExecutable(p) {
		return p
	}
	return "bazel"
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func bazelOutput(ws, bazel string, args []string) (string, error) {
	cmd := exec.Command(bazel, args...)
	cmd.Dir = ws
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v", bazel, strings.Join(args, " "), err)
	}
	return stdout.String(), nil
}

// aqueryOutput is the part of `bazel aquery --output=jsonproto` read here.
type aqueryOutput struct {
	Actions []struct {
		Mnemonic  string   `json:"mnemonic"`
		Arguments []string `json:"arguments"`
	} `json:"actions"`
}

// fromAquery converts aquery's actions into entries, one per source file
// (the first action wins), sorted by file.
func fromAquery(raw []byte, execRoot, outputBase string, external bool) ([]Entry, error) {
	var q aqueryOutput
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("reading bazel aquery's output: %v", err)
	}
	var argvs [][]string
	for _, a := range q.Actions {
		argvs = append(argvs, a.Arguments)
	}
	entries := FromArgvs(argvs, execRoot, external)
	for i := range entries {
		entries[i].Arguments = absoluteExternal(entries[i].Arguments, outputBase)
	}
	return entries, nil
}

// FromArgvs converts compile command lines into entries run from dir: one
// per source file (the first command wins), sources of external repositories
// and generated sources left out unless external, sorted by file.
func FromArgvs(argvs [][]string, dir string, external bool) []Entry {
	seen := map[string]bool{}
	var entries []Entry
	for _, argv := range argvs {
		e, ok := ConvertAction(argv, dir)
		if !ok || seen[e.File] {
			continue
		}
		if !external && (strings.HasPrefix(e.File, "external/") || strings.HasPrefix(e.File, "bazel-out/")) {
			continue
		}
		seen[e.File] = true
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].File < entries[j].File })
	return entries
}

var externalArg = regexp.MustCompile(`^(-[A-Za-z_-]*=?)?external/`)

// absoluteExternal names external repositories by their directory in the
// output base: the execution root links only those of the last build.
func absoluteExternal(args []string, outputBase string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = externalArg.ReplaceAllString(a, "${1}"+outputBase+"/external/")
	}
	return out
}

func write(path string, entries []Entry) error {
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func summary(entries []Entry) string {
	count := map[string]int{}
	for _, e := range entries {
		count[filepath.Ext(e.File)]++
	}
	var parts []string
	for ext, n := range count {
		parts = append(parts, fmt.Sprintf("%d %s", n, ext))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d entries (%s)", len(entries), strings.Join(parts, ", "))
}
