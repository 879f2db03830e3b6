// Package integration runs tools/rexec end to end: tools/rexec/up starts
// BuildGrid, PostgreSQL and workers; Bazel (tools/bazel) builds and tests
// tools/rexec/testdata/ws with --config=rexec; Bazel's execution log and the
// workers' journals say where each action ran.
//
//	CUBRIDGE_REXEC_INTEGRATION=1 go test -count=1 -timeout 20m -v ./tools/rexec/integration/
//
// Needs root and tools/bazel's offline rootfs; skipped (with the reason)
// otherwise. CUBRIDGE_REXEC_KEEP=1 keeps a failed run's state and logs.
package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// One engine for every scenario, in this order: the last stops it.
// Two CPU workers (one is killed) and a GPU worker; a worker silent for
// 10 s is dead.
func TestRemoteExecution(t *testing.T) {
	repo := requireEnvironment(t)
	e := startEngine(t, repo, "--workers", "2", "--gpu-workers", "1", "--bot-keepalive", "10s")

	t.Run("NothingListensBeyondLoopback", func(t *testing.T) { testListeners(t, e) })
	t.Run("RequestsWithoutAValidTokenAreRefused", func(t *testing.T) { testAuth(t, e) })
	t.Run("EverySpawnRunsRemotelyAndGPUTestsOnlyOnTheGPUWorker", func(t *testing.T) { testRouting(t, e) })
	t.Run("AnotherRootfsIsNeverChosen", func(t *testing.T) { testAnotherRootfs(t, e) })
	t.Run("AfterCleanEveryActionIsARemoteCacheHit", func(t *testing.T) { testCleanBuildHitsTheCache(t, e) })
	t.Run("ActionsSeeTheirInputsAndTheRootfsOnly", func(t *testing.T) { testSealed(t, e) })
	t.Run("ACorruptBlobIsDetectedAndNotUsed", func(t *testing.T) { testCorruptBlob(t, e) })
	t.Run("AKilledWorkersActionRunsOnAnother", func(t *testing.T) { testKilledWorker(t, e) })
	t.Run("WithTheEngineStoppedFallbackFinishesLocally", func(t *testing.T) { testEngineStopped(t, e) })
}

// token mints a token with the engine tool; state picks the signing key.
func (e *engine) token(t *testing.T, state, subject, ttl string) string {
	out, err := exec.Command(filepath.Join(e.state, "bin/engine"), "token", "--state", state,
		"--subject", subject, "--ttl", ttl).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	if b == "" {
		return nil, nil
	}
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearer) RequireTransportSecurity() bool { return false }

func (e *engine) conn(t *testing.T, token string) *grpc.ClientConn {
	conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(e.port),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithPerRPCCredentials(bearer(token)))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

func testAuth(t *testing.T, e *engine) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bazelTok, err := os.ReadFile(filepath.Join(e.state, "tokens/bazel.jwt"))
	require.NoError(t, err)
	workerTok, err := os.ReadFile(filepath.Join(e.state, "tokens/worker.jwt"))
	require.NoError(t, err)
	otherKey := e.token(t, t.TempDir(), "bazel", "1h") // signed by another key
	expired := e.token(t, e.state, "bazel", "-1h")     // the engine's key, expired

	capabilities := func(tok string) error {
		_, err := repb.NewCapabilitiesClient(e.conn(t, tok)).GetCapabilities(ctx, &repb.GetCapabilitiesRequest{InstanceName: "main"})
		return err
	}
	require.NoError(t, capabilities(strings.TrimSpace(string(bazelTok))), "Bazel's token is accepted")
	for name, tok := range map[string]string{"no token": "", "another key's token": otherKey, "an expired token": expired, "garbage": "not.a.jwt"} {
		assert.Equal(t, codes.Unauthenticated, status.Code(capabilities(tok)), name)
	}

	// Each token does its own part only (the engine's ACL; BuildGrid's jwt
	// method answers UNAUTHENTICATED for a valid token the ACL refuses too:
	// the tokens themselves are accepted above and by the running workers).
	_, err = rwpb.NewBotsClient(e.conn(t, strings.TrimSpace(string(bazelTok)))).CreateBotSession(ctx, &rwpb.CreateBotSessionRequest{
		Parent: "main", BotSession: &rwpb.BotSession{BotId: "intruder", Status: rwpb.BotStatus_OK},
	})
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "Bazel's token cannot act as a worker: %v", err)
	stream, err := repb.NewExecutionClient(e.conn(t, strings.TrimSpace(string(workerTok)))).Execute(ctx, &repb.ExecuteRequest{
		InstanceName: "main", ActionDigest: &repb.Digest{Hash: strings.Repeat("0", 64), SizeBytes: 1},
	})
	if err == nil {
		_, err = stream.Recv()
	}
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "a worker's token cannot execute: %v", err)
	_, err = repb.NewCapabilitiesClient(e.conn(t, strings.TrimSpace(string(workerTok)))).GetCapabilities(ctx,
		&repb.GetCapabilitiesRequest{InstanceName: "main"})
	assert.NoError(t, err, "the worker's token itself is valid")
}

// isRemote: the spawn was executed by the engine (not a cache hit, not local).
func isRemote(s spawn) bool { return s.Runner == "remote" && !s.RemoteCacheHit }

func testRouting(t *testing.T, e *engine) {
	e.newNonce(t)
	r := e.bazel(t, "test", "--config=rexec", "//...")
	require.NoError(t, r.err, "bazel test --config=rexec //...:\n%s", lastLines(r.out, 40))
	require.NotEmpty(t, r.spawns)

	journal := e.journals(t)
	type ran struct {
		s spawn
		j journalEntry
	}
	var gpuTest *ran
	var cpuRuns []ran
	var timeline []string
	for _, s := range r.spawns {
		require.True(t, isRemote(s), "%s (%s) ran %q, not remotely", s.TargetLabel, s.Mnemonic, s.Runner)
		assert.NotEmpty(t, s.property("cubridge-rootfs"), "every action names its rootfs")
		done := ends(journal, s.Digest.Hash)
		require.Len(t, done, 1, "%s: one worker ran action %s", s.TargetLabel, s.Digest.Hash)
		j := done[0]
		assert.Equal(t, "OK", j.Status)
		if s.property("gpu") != "" {
			assert.Equal(t, "gpu-1", j.Worker, "%s asks for a GPU", s.TargetLabel)
			assert.Equal(t, "//:gpu_test", s.TargetLabel, "only the GPU test's actions ask for a GPU")
			assert.Equal(t, "TestRunner", s.Mnemonic, "only test actions (the run, its XML report) ask for a GPU")
			if runsTheTest(s) {
				gpuTest = &ran{s, j}
			}
		} else {
			assert.True(t, strings.HasPrefix(j.Worker, "cpu-"), "%s needs no GPU but ran on %s", s.TargetLabel, j.Worker)
			cpuRuns = append(cpuRuns, ran{s, j})
		}
		timeline = append(timeline, fmt.Sprintf("%s  %-6s %-12s %-16s gpu=%-1s %5.2fs",
			j.Start.Format("15:04:05.000"), j.Worker, s.Mnemonic, s.TargetLabel, s.property("gpu"), j.End.Sub(j.Start).Seconds()))
	}
	sort.Strings(timeline)
	t.Logf("which worker ran what (start, worker, mnemonic, target, gpu, run time):\n%s", strings.Join(timeline, "\n"))
	require.NotNil(t, gpuTest, "//:gpu_test ran with gpu=1")

	// Non-GPU work went on while the GPU worker was busy: at least one CPU
	// test ran from start to end inside the GPU test's run.
	inside := 0
	for _, c := range cpuRuns {
		if runsTheTest(c.s) && !c.j.Start.Before(gpuTest.j.Start) && !c.j.End.After(gpuTest.j.End) {
			inside++
		}
	}
	assert.Positive(t, inside, "no CPU test ran while the GPU test did")
}

// A remote action runs in the rootfs alone: the workspace and Bazel's
// output base, which tools/bazel binds into the rootfs for local actions,
// are not there; the rootfs is read only; temporary files go to a
// directory of the action's own. The same action run locally sees the
// workspace (the probe works).
func testSealed(t *testing.T, e *engine) {
	e.newNonce(t)
	e.writeFile(t, "probe_path.txt", filepath.Join(e.ws, "BUILD.bazel")+"\n")
	sealed := filepath.Join(e.ws, "bazel-bin/sealed.txt")

	r := e.bazel(t, "build", "//:sealed")
	require.NoError(t, r.err, "bazel build //:sealed (local):\n%s", lastLines(r.out, 30))
	local, err := os.ReadFile(sealed)
	require.NoError(t, err)
	assert.Contains(t, string(local), "workspace visible\n", "a local action sees the workspace:\n%s", local)

	r = e.bazel(t, "build", "--config=rexec", "//:sealed")
	require.NoError(t, r.err, "bazel build --config=rexec //:sealed:\n%s", lastLines(r.out, 30))
	for _, s := range r.spawns {
		require.True(t, isRemote(s), "%s ran %q, not remotely", s.TargetLabel, s.Runner)
	}
	remote, err := os.ReadFile(sealed)
	require.NoError(t, err)
	got := string(remote)
	assert.Contains(t, got, "workspace hidden\n")
	assert.Contains(t, got, "root read-only\n")
	assert.Regexp(t, "TMPDIR="+regexp.QuoteMeta(filepath.Join(e.state, "workers"))+"/[^/]+/action-[^/]+/tmp\n", got)
	t.Logf("a remote action sees:\n%s", got)
}

// An action configured for another rootfs finds no worker (the engine
// refuses it at once), and a worker of another rootfs cannot open a session.
func testAnotherRootfs(t *testing.T, e *engine) {
	const other = "000000000000"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	worker := exec.CommandContext(ctx, filepath.Join(e.state, "bin/worker"),
		"--engine", "127.0.0.1:"+strconv.Itoa(e.port), "--instance", "main",
		"--token-file", filepath.Join(e.state, "tokens/worker.jwt"), "--rootfs-hash", other,
		"--work-dir", t.TempDir(), "--name", "stranger")
	out, err := worker.CombinedOutput()
	require.Error(t, err, "a worker of another rootfs must not serve:\n%s", out)
	assert.Contains(t, string(out), "schedules no work for this worker's platform")
	t.Logf("a worker of rootfs %s: %s", other, lastLines(string(out), 1))

	r := e.bazel(t, "build", "--config=rexec", "//:other_rootfs") // exec_properties: cubridge-rootfs=000000000000
	require.Error(t, r.err, "an action for another rootfs must not run")
	assert.Contains(t, r.out, "Could not find property set")
	for _, j := range e.journals(t) {
		assert.NotEqual(t, "bazel-out/k8-fastbuild/bin/other_rootfs.txt", j.Output, "no worker took it (%s did)", j.Worker)
	}
	t.Logf("an action for rootfs %s: %s", other, lineWith(r.out, "property set"))
}

func lineWith(out, s string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// After `bazel clean` the same tests again: every action's result comes
// from the engine's action cache, nothing runs.
func testCleanBuildHitsTheCache(t *testing.T, e *engine) {
	e.bazelQuiet("clean")
	started := time.Now()
	r := e.bazel(t, "test", "--config=rexec", "//...")
	require.NoError(t, r.err, "bazel test after clean:\n%s", lastLines(r.out, 30))
	require.NotEmpty(t, r.spawns)
	hits := 0
	for _, s := range r.spawns {
		if s.RemoteCacheHit || s.Runner == "remote cache hit" {
			hits++
		} else {
			t.Errorf("%s (%s) was not a cache hit (runner %q)", s.TargetLabel, s.Mnemonic, s.Runner)
		}
	}
	t.Logf("after clean: %d of %d spawns remote cache hits, %.1f s (the routing run: the same spawns executed)",
		hits, len(r.spawns), time.Since(started).Seconds())
}

// runsTheTest: the spawn runs a test, as opposed to the one that writes its
// XML report afterwards (whose only output is test.xml).
func runsTheTest(s spawn) bool {
	for _, o := range s.ListedOutputs {
		if !strings.HasSuffix(o, "/test.xml") {
			return true
		}
	}
	return false
}

func testCorruptBlob(t *testing.T, e *engine) {
	began := time.Now()
	content := fmt.Sprintf("victim %d\n", time.Now().UnixNano())
	e.writeFile(t, "victim.txt", content)
	sum := sha256.Sum256([]byte(content))
	hash := hex.EncodeToString(sum[:])
	// The same length, other bytes, stored under victim.txt's digest in the
	// engine's CAS (BuildGrid's disk storage) before Bazel uploads it: Bazel
	// then finds the blob present and sends nothing.
	object := filepath.Join(e.state, "engine/root/var/lib/cubridge-rexec/cas/cas/objects", hash[:2], hash[2:])
	require.NoError(t, os.WriteFile(object, []byte(strings.Repeat("X", len(content))), 0o644))

	r := e.bazel(t, "build", "--config=rexec", "//:victim_copy")
	require.Error(t, r.err, "the build cannot succeed remotely:\n%s", lastLines(r.out, 30))
	assert.Contains(t, r.out, "corrupt blob "+hash, "Bazel says why")
	failed := 0
	for _, j := range e.journals(t) {
		if j.Event == "end" && j.Output == "bazel-out/k8-fastbuild/bin/victim_copy.txt" && j.Start.After(began) {
			assert.Equal(t, "FailedPrecondition", j.Status, "the worker refused to run it")
			failed++
		}
	}
	assert.Positive(t, failed, "a worker got the action and refused it")
	t.Logf("workers refused the action %d times; Bazel: %s", failed, lineWith(r.out, "corrupt blob"))

	r = e.bazel(t, "build", "--config=rexec-fallback", "//:victim_copy")
	require.NoError(t, r.err, "with --remote_local_fallback:\n%s", lastLines(r.out, 30))
	for _, s := range r.spawns {
		if s.TargetLabel == "//:victim_copy" {
			assert.False(t, isRemote(s), "the action fell back to local execution (runner %q)", s.Runner)
		}
	}
	out, err := os.ReadFile(filepath.Join(e.ws, "bazel-bin/victim_copy.txt"))
	require.NoError(t, err)
	assert.Equal(t, content, string(out), "the output comes from the true input, not the corrupt blob")
}

func testKilledWorker(t *testing.T, e *engine) {
	e.newNonce(t)
	e.writeFile(t, "slow_seconds.txt", "8\n")
	done := make(chan bazelResult, 1)
	go func() { done <- e.bazel(t, "build", "--config=rexec", "//:slow") }()

	const output = "bazel-out/k8-fastbuild/bin/slow.txt"
	var victim journalEntry
	deadline := time.Now().Add(2 * time.Minute)
	for victim.Worker == "" {
		require.True(t, time.Now().Before(deadline), "no worker started //:slow")
		for _, j := range e.journals(t) {
			if j.Event == "start" && j.Output == output && len(ends(e.journals(t), j.Action)) == 0 {
				victim = j
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // well inside its 8 s
	pid, err := os.ReadFile(filepath.Join(e.state, "run", "worker-"+victim.Worker+".pid"))
	require.NoError(t, err)
	n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(n, syscall.SIGKILL))
	killed := time.Now()
	t.Logf("killed worker %s (pid %d) 2 s into //:slow", victim.Worker, n)

	var r bazelResult
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the build did not finish within 3 minutes of the kill")
	}
	require.NoError(t, r.err, "the build passes:\n%s", lastLines(r.out, 30))
	t.Logf("the build finished %.1f s after the kill", time.Since(killed).Seconds())
	found := false
	for _, s := range r.spawns {
		if s.TargetLabel == "//:slow" {
			found = true
			assert.True(t, isRemote(s), "//:slow ran remotely (runner %q)", s.Runner)
			done := ends(e.journals(t), s.Digest.Hash)
			require.Len(t, done, 1, "one worker finished it")
			assert.NotEqual(t, victim.Worker, done[0].Worker, "another worker finished it")
			assert.Equal(t, "OK", done[0].Status)
			assert.Equal(t, victim.Action, s.Digest.Hash, "the same action")
		}
	}
	assert.True(t, found, "//:slow is in the execution log")
	out, err := os.ReadFile(filepath.Join(e.ws, "bazel-bin/slow.txt"))
	require.NoError(t, err)
	nonce, _ := os.ReadFile(filepath.Join(e.ws, "nonce.txt"))
	assert.Equal(t, string(nonce), string(out))
}

func testEngineStopped(t *testing.T, e *engine) {
	e.down(t)
	e.newNonce(t)
	r := e.bazel(t, "build", "--config=rexec-fallback", "//:hello")
	require.NoError(t, r.err, "--config=rexec-fallback without an engine:\n%s", lastLines(r.out, 30))
	require.NotEmpty(t, r.spawns)
	for _, s := range r.spawns {
		assert.False(t, isRemote(s), "%s ran %q", s.TargetLabel, s.Runner)
	}

	e.newNonce(t)
	r = e.bazel(t, "build", "--config=rexec", "//:hello")
	require.Error(t, r.err, "--config=rexec without an engine fails")
	assert.Regexp(t, `UNAVAILABLE|Connection refused|connection refused`, r.out, "and says why:\n%s", lastLines(r.out, 20))
	t.Logf("--config=rexec without an engine says:\n%s", lastLines(r.out, 6))
}
