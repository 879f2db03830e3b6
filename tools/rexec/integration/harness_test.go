package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// engine is an engine started with tools/rexec/up in a state directory of
// the test's own, on a free port: a running user engine is left alone.
type engine struct {
	repo  string
	state string
	port  int
	ws    string // the test's copy of tools/rexec/testdata/ws
}

// requireEnvironment skips, saying why, where the test cannot run.
func requireEnvironment(t *testing.T) string {
	t.Helper()
	if os.Getenv("CUBRIDGE_REXEC_INTEGRATION") != "1" {
		t.Skip("starts BuildGrid, PostgreSQL, workers and Bazel (several minutes): set CUBRIDGE_REXEC_INTEGRATION=1")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: tools/bazel's offline rootfs (chroot) and the engine's mounts")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs go on PATH (tools/rexec/up builds the engine and the worker)")
	}
	repo, err := filepath.Abs("../../..")
	require.NoError(t, err)
	cmd := exec.Command(filepath.Join(repo, "tools/bazel"))
	cmd.Env = append(os.Environ(), "CUBRIDGE_PRINT_ROOTFS=1")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("tools/bazel cannot set up its rootfs here: %v\n%s", err, out)
	}
	rootfs = strings.TrimSpace(string(out))
	return repo
}

// rootfs is the build rootfs (tools/bazel binds workspaces into it).
var rootfs string

func freePort(t *testing.T) int {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lis.Close()
	return lis.Addr().(*net.TCPAddr).Port
}

// startEngine runs tools/rexec/up with args; down runs when the test ends.
func startEngine(t *testing.T, repo string, args ...string) *engine {
	t.Helper()
	// Not t.TempDir: Bazel's output base and the engine's layer hold files
	// of other users and read-only trees; the cleanup below removes it.
	base, err := os.MkdirTemp("", "rexec-test-")
	require.NoError(t, err)
	e := &engine{repo: repo, state: filepath.Join(base, "state"), port: freePort(t), ws: filepath.Join(base, "ws")}
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("CUBRIDGE_REXEC_KEEP") == "1" {
			t.Logf("kept %s (CUBRIDGE_REXEC_KEEP=1)", base)
			return
		}
		e.bazelQuiet("clean", "--expunge")
		e.down(t)
		// tools/bazel bound the workspace copy into its rootfs.
		inRootfs := filepath.Join(rootfs, e.ws)
		syscall.Unmount(inRootfs, syscall.MNT_DETACH)
		os.Remove(inRootfs)
		os.Remove(filepath.Dir(inRootfs))
		os.RemoveAll(base)
	})
	started := time.Now()
	up := append([]string{"--state", e.state, "--port", strconv.Itoa(e.port)}, args...)
	out, err := e.run(t, 5*time.Minute, filepath.Join(repo, "tools/rexec/up"), up...)
	require.NoError(t, err, "tools/rexec/up failed:\n%s", out)
	t.Logf("tools/rexec/up %s: %.1f s\n%s", strings.Join(args, " "), time.Since(started).Seconds(), lastLines(out, 7))
	e.copyWorkspace(t)
	return e
}

func (e *engine) down(t *testing.T) {
	out, err := e.run(t, 2*time.Minute, filepath.Join(e.repo, "tools/rexec/down"), "--state", e.state)
	if err != nil {
		t.Errorf("tools/rexec/down: %v\n%s", err, out)
	}
}

func (e *engine) run(t *testing.T, timeout time.Duration, prog string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = e.repo
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %s: %w", prog, timeout, err)
	}
	return string(out), err
}

// copyWorkspace copies the test workspace, importing tools/rexec/rexec.bazelrc and
// the credential helper by absolute path.
func (e *engine) copyWorkspace(t *testing.T) {
	src := filepath.Join(e.repo, "tools/rexec/testdata/ws")
	require.NoError(t, filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		dst := filepath.Join(e.ws, rel)
		switch {
		case strings.HasPrefix(rel, "bazel-") || rel == "MODULE.bazel.lock":
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case info.Mode()&os.ModeSymlink != 0:
			return nil // the credential helper: linked below
		case info.IsDir():
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel == ".bazelrc" {
			data = []byte(strings.ReplaceAll(string(data), "import %workspace%/../../rexec.bazelrc",
				"import "+filepath.Join(e.repo, "tools/rexec/rexec.bazelrc")))
		}
		return os.WriteFile(dst, data, info.Mode().Perm())
	}))
	require.NoError(t, os.MkdirAll(filepath.Join(e.ws, "tools/rexec"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(e.repo, "tools/rexec/credential-helper"),
		filepath.Join(e.ws, "tools/rexec/credential-helper")))
}

func (e *engine) writeFile(t *testing.T, name, content string) {
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, name), []byte(content), 0o644))
}

// newNonce makes every action of the workspace new to the action cache.
func (e *engine) newNonce(t *testing.T) {
	e.writeFile(t, "nonce.txt", fmt.Sprintf("%s %d\n", t.Name(), time.Now().UnixNano()))
}

// bazelResult is one Bazel invocation: its output and execution log.
type bazelResult struct {
	out    string
	err    error
	spawns []spawn
}

// bazel runs tools/bazel in the workspace copy, against this engine, with
// an execution log.
func (e *engine) bazel(t *testing.T, args ...string) bazelResult {
	t.Helper()
	log := filepath.Join(e.ws, fmt.Sprintf("exec-%d.json", time.Now().UnixNano()))
	cmd := e.bazelCommand(append(args, "--execution_log_json_file="+log)...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd = withContext(ctx, cmd)
	out, err := cmd.CombinedOutput()
	r := bazelResult{out: string(out), err: err}
	if ctx.Err() != nil {
		r.err = fmt.Errorf("bazel %s timed out: %w", strings.Join(args, " "), err)
	}
	r.spawns = readSpawns(t, log)
	return r
}

func (e *engine) bazelCommand(args ...string) *exec.Cmd {
	full := args
	remote := false
	for _, a := range args {
		remote = remote || strings.HasPrefix(a, "--config=rexec")
	}
	if remote {
		// The engine of this test, not the default one: after --config,
		// which would override it.
		full = append(append([]string{}, args...), "--remote_executor=grpc://127.0.0.1:"+strconv.Itoa(e.port))
	}
	cmd := exec.Command(filepath.Join(e.repo, "tools/bazel"), full...)
	cmd.Dir = e.ws
	// The credential helper finds this state's token (tools/bazel passes
	// CUBRIDGE_* on into its rootfs).
	cmd.Env = append(os.Environ(), "CUBRIDGE_REXEC_DIR="+e.state)
	return cmd
}

func withContext(ctx context.Context, cmd *exec.Cmd) *exec.Cmd {
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Dir, c.Env = cmd.Dir, cmd.Env
	return c
}

func (e *engine) bazelQuiet(args ...string) {
	cmd := e.bazelCommand(args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	withContext(ctx, cmd).Run()
}

// spawn is the part of Bazel's execution log (SpawnExec) the tests read.
type spawn struct {
	TargetLabel    string `json:"targetLabel"`
	Mnemonic       string `json:"mnemonic"`
	Runner         string `json:"runner"`
	RemoteCacheHit bool   `json:"remoteCacheHit"`
	ExitCode       int    `json:"exitCode"`
	Digest         struct {
		Hash string `json:"hash"`
	} `json:"digest"`
	Platform struct {
		Properties []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"properties"`
	} `json:"platform"`
	ListedOutputs []string `json:"listedOutputs"`
}

func (s spawn) property(name string) string {
	for _, p := range s.Platform.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// readSpawns reads a JSON execution log: one SpawnExec object after another.
func readSpawns(t *testing.T, path string) []spawn {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	dec := json.NewDecoder(f)
	var spawns []spawn
	for {
		var s spawn
		if err := dec.Decode(&s); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		spawns = append(spawns, s)
	}
	return spawns
}

// journalEntry is one line of a worker's action journal.
type journalEntry struct {
	Event    string    `json:"event"`
	Worker   string    `json:"worker"`
	Action   string    `json:"action"`
	Output   string    `json:"output"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Status   string    `json:"status"`
	ExitCode int       `json:"exit_code"`
}

// journals reads every worker's journal.
func (e *engine) journals(t *testing.T) []journalEntry {
	paths, err := filepath.Glob(filepath.Join(e.state, "logs", "*.actions.jsonl"))
	require.NoError(t, err)
	var entries []journalEntry
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var j journalEntry
			require.NoError(t, json.Unmarshal(sc.Bytes(), &j), "%s: %s", p, sc.Text())
			entries = append(entries, j)
		}
		f.Close()
	}
	return entries
}

// ends are the journal's "end" entries of one action.
func ends(entries []journalEntry, action string) []journalEntry {
	var out []journalEntry
	for _, j := range entries {
		if j.Event == "end" && j.Action == action {
			out = append(out, j)
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
