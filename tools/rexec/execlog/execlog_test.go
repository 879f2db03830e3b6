package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A log as Bazel writes it (proto JSON, int64 as strings, durations as
// "1.5s"): a compile and a link feed a GPU test, which reads the binary
// through its runfiles (another path, the same digest); a fourth spawn
// stands alone; the fifth was a remote cache hit.
const testLog = `{
  "mnemonic": "CppCompile", "targetLabel": "//a:lib", "runner": "remote",
  "inputs": [{"path": "a/lib.cc", "digest": {"hash": "src", "sizeBytes": "100"}}],
  "actualOutputs": [{"path": "bazel-out/bin/a/lib.o", "digest": {"hash": "obj", "sizeBytes": "1000"}}],
  "digest": {"hash": "act-compile", "sizeBytes": "140"},
  "metrics": {"totalTime": "2.500s", "executionWallTime": "2s", "queueTime": "0.100s"}
}
{
  "mnemonic": "CppLink", "targetLabel": "//a:test", "runner": "remote",
  "inputs": [{"path": "bazel-out/bin/a/lib.o", "digest": {"hash": "obj", "sizeBytes": "1000"}}],
  "actualOutputs": [{"path": "bazel-out/bin/a/test", "digest": {"hash": "bin", "sizeBytes": "5000"}}],
  "digest": {"hash": "act-link", "sizeBytes": "140"},
  "metrics": {"totalTime": "1.200s", "executionWallTime": "1s"}
}
{
  "mnemonic": "TestRunner", "targetLabel": "//a:test", "runner": "remote",
  "platform": {"properties": [{"name": "OSFamily", "value": "Linux"}, {"name": "gpu", "value": "1"}]},
  "inputs": [{"path": "bazel-out/bin/a/test.runfiles/_main/a/test", "digest": {"hash": "bin", "sizeBytes": "5000"}}],
  "actualOutputs": [{"path": "bazel-out/testlogs/a/test/test.log", "digest": {"hash": "log", "sizeBytes": "10"}}],
  "digest": {"hash": "act-test", "sizeBytes": "140"},
  "metrics": {"totalTime": "3.500s", "executionWallTime": "3s", "queueTime": "0.200s"}
}
{
  "mnemonic": "GoCompilePkg", "targetLabel": "//b:b", "runner": "remote",
  "inputs": [{"path": "b/b.go", "digest": {"hash": "src", "sizeBytes": "100"}}],
  "actualOutputs": [{"path": "bazel-out/bin/b/b.a", "digest": {"hash": "arch", "sizeBytes": "700"}}],
  "digest": {"hash": "act-go", "sizeBytes": "140"},
  "metrics": {"totalTime": "4s", "executionWallTime": "4s"}
}
{
  "mnemonic": "Genrule", "targetLabel": "//c:c", "runner": "remote cache hit", "cacheHit": true,
  "digest": {"hash": "act-cached", "sizeBytes": "140"},
  "metrics": {"totalTime": "0.050s"}
}
`

func TestReadLog(t *testing.T) {
	spawns, err := readLog(strings.NewReader(testLog))
	require.NoError(t, err)
	require.Len(t, spawns, 5)
	s := spawns[0]
	assert.Equal(t, "CppCompile", s.Mnemonic)
	assert.Equal(t, 2*time.Second, s.runTime())
	assert.Equal(t, 100*time.Millisecond, time.Duration(s.Metrics.QueueTime))
	assert.EqualValues(t, 100, s.Inputs[0].Digest.SizeBytes)
	assert.True(t, s.remote())
	assert.Equal(t, "1", spawns[2].property("gpu"))
	assert.True(t, spawns[4].cached())
	assert.False(t, spawns[4].remote())

	_, err = readLog(strings.NewReader(`{"metrics": {"totalTime": 3}}`))
	assert.ErrorContains(t, err, "entry 1 of the execution log")
}

func TestCriticalPathFollowsOutputsByPathAndByDigest(t *testing.T) {
	spawns, err := readLog(strings.NewReader(testLog))
	require.NoError(t, err)
	path, length, err := newGraph(spawns).criticalPath(runCost)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, path, "compile, link, then the test that reads the link's output through its runfiles")
	assert.Equal(t, 6*time.Second, length)
}

func TestCriticalPathRefusesACycle(t *testing.T) {
	spawns := []spawnExec{
		{TargetLabel: "//x", Inputs: []file{{Path: "b"}}, ActualOutputs: []file{{Path: "a"}}},
		{TargetLabel: "//y", Inputs: []file{{Path: "a"}}, ActualOutputs: []file{{Path: "b"}}},
	}
	_, _, err := newGraph(spawns).criticalPath(runCost)
	assert.ErrorContains(t, err, "cycle")
}

func TestAnalyze(t *testing.T) {
	spawns, err := readLog(strings.NewReader(testLog))
	require.NoError(t, err)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, "2026-11-28T10:00:"+s+"Z")
		require.NoError(t, err)
		return v
	}
	runs := map[string]ran{
		"act-compile": {Worker: "cpu-1", Action: "act-compile", Start: at("00"), End: at("02"), InputFiles: 1, InputBytesFetched: 100},
		"act-link":    {Worker: "cpu-1", Action: "act-link", Start: at("03"), End: at("04"), InputFiles: 1, InputBytesFetched: 1000},
		"act-test":    {Worker: "gpu-1", Action: "act-test", Start: at("05"), End: at("09"), InputFiles: 1, InputBytesFetched: 5000},
		"act-go":      {Worker: "cpu-2", Action: "act-go", Start: at("05.5"), End: at("08"), InputFiles: 1, InputsCached: 1},
	}
	r, err := analyze(spawns, runs, []int{1, 100}, 10)
	require.NoError(t, err)
	t.Log("\n" + r.text)
	assert.Zero(t, r.notRemote)
	for _, want := range []string{
		"spawns: 5 (executed remotely 4, remote cache hits 1, other 0)",
		"their commands ran 10.0s in all",
		"input bytes: 6.1 KiB summed over the executed spawns",
		"6.0 KiB distinct (3 blobs)",
		"critical path: 3 spawns, 6.0s of commands; 6.9s with each remote spawn's own overheads",
		// work with overheads: 2.4 + 1.2 + 3.3 + 4 = 10.9 s
		"     1 workers: 10.9s .. 17.8s",
		"   100 workers: 6.9s .. 7.0s",
		"cpu-1       2 actions",
		"asking for a GPU: 1 spawns; spawns without gpu on a gpu-* worker: 0",
		"gpu-1   gpu=1 TestRunner  //a:test",
		"(1 other actions ran meanwhile on other workers)",
	} {
		assert.Contains(t, r.text, want)
	}

	// A spawn that ran here is counted, and -require-remote's count says so.
	spawns[3].Runner = "processwrapper-sandbox"
	r, err = analyze(spawns, nil, []int{1}, 10)
	require.NoError(t, err)
	assert.Equal(t, 1, r.notRemote)
	assert.Contains(t, r.text, "other 1")
	assert.Contains(t, r.text, "not remote (runner, mnemonic, count, targets):")
	assert.Contains(t, r.text, `"processwrapper-sandbox"     GoCompilePkg 1: //b:b`)

	// A failed spawn is named.
	spawns[1].ExitCode = 2
	r, err = analyze(spawns, nil, []int{1}, 10)
	require.NoError(t, err)
	assert.Contains(t, r.text, "FAILED (exit 2): CppLink //a:test (remote)")
}

func TestCompare(t *testing.T) {
	local, err := readOutputs(strings.NewReader(testLog))
	require.NoError(t, err)
	remote, err := readOutputs(strings.NewReader(strings.NewReplacer(
		`"hash": "bin"`, `"hash": "bin2"`, // the link differs (and the test's input with it)
		`"hash": "log"`, `"hash": "log2"`, // a test log differs: counted apart
		`"bazel-out/bin/b/b.a"`, `"bazel-out/bin/b/other.a"`, // a path only one wrote
	).Replace(testLog)))
	require.NoError(t, err)
	c := compare(local, remote, "local", "remote", 10)
	t.Log("\n" + c.text)
	assert.Equal(t, 1, c.different)
	for _, want := range []string{
		"outputs in both logs: 2 build outputs, 1 identical, 1 different; test outputs (testlogs/): 0 identical, 1 different",
		"outputs only in local: 1; only in remote: 1",
		"different build outputs by mnemonic: CppLink 1",
		"CppLink        //a:test                                 bazel-out/bin/a/test  bin/5000 vs bin2/5000",
	} {
		assert.Contains(t, c.text, want)
	}
	c = compare(local, local, "local", "local", 10)
	assert.Zero(t, c.different)
	assert.Contains(t, c.text, "3 build outputs, 3 identical, 0 different")
}

func TestReadJournalsKeepsTheLastEnd(t *testing.T) {
	dir := t.TempDir()
	lines := `{"event":"start","worker":"cpu-1","action":"a","start":"2026-11-28T10:00:00Z"}
{"event":"end","worker":"cpu-1","action":"a","start":"2026-11-28T10:00:00Z","end":"2026-11-28T10:00:01Z","status":"Unavailable"}
{"event":"end","worker":"cpu-2","action":"a","start":"2026-11-28T10:00:02Z","end":"2026-11-28T10:00:03Z","status":"OK"}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu-1.actions.jsonl"), []byte(lines), 0o644))
	runs, err := readJournals(dir)
	require.NoError(t, err)
	assert.Equal(t, "cpu-2", runs["a"].Worker)

	_, err = readJournals(t.TempDir())
	assert.ErrorContains(t, err, "no workers' journals")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.actions.jsonl"), []byte("{\n"), 0o644))
	_, err = readJournals(dir)
	assert.ErrorContains(t, err, "bad.actions.jsonl:1")
}

func TestParseCounts(t *testing.T) {
	c, err := parseCounts("1, 2,100")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 100}, c)
	for _, bad := range []string{"", "0", "two", "1,,2"} {
		_, err := parseCounts(bad)
		assert.Error(t, err, bad)
	}
}
