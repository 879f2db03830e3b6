package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func testExecutor(t *testing.T, c *casClient, gpus int) *executor {
	p, err := newPlatform(testHash, gpus)
	require.NoError(t, err)
	return &executor{
		cas: c, platform: p, name: "test-worker", workDir: t.TempDir(),
		isolate: canIsolate(), defaultTimeout: time.Minute, maxTimeout: time.Hour,
	}
}

// testAction stores an action that copies in.txt to out/copy.txt and
// prints to both streams; it returns the lease payload (the Action digest)
// and the input file's digest.
func testAction(t *testing.T, f *fakeCAS, script string, platform *repb.Platform, timeout time.Duration) (*anypb.Any, *repb.Digest) {
	in := f.put([]byte("input\n"))
	root := f.putMessage(t, &repb.Directory{Files: []*repb.FileNode{{Name: "in.txt", Digest: in}}})
	cmd := f.putMessage(t, &repb.Command{
		Arguments:            []string{"/bin/sh", "-c", script},
		EnvironmentVariables: []*repb.Command_EnvironmentVariable{{Name: "PATH", Value: "/usr/bin:/bin"}},
		OutputPaths:          []string{"out/copy.txt"},
	})
	action := &repb.Action{CommandDigest: cmd, InputRootDigest: root, Platform: platform}
	if timeout > 0 {
		action.Timeout = durationpb.New(timeout)
	}
	payload, err := anypb.New(f.putMessage(t, action))
	require.NoError(t, err)
	return payload, in
}

func TestExecuteRunsTheActionAndUploadsItsOutputs(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, _ := testAction(t, f, `cp in.txt out/copy.txt; echo to-stdout; echo to-stderr >&2; exit 7`,
		props("OSFamily", "Linux", "cubridge-rootfs", testHash), 0)
	out := testExecutor(t, c, 0).execute(context.Background(), "lease-1", payload)

	require.EqualValues(t, codes.OK, out.status.Code, out.status.Message)
	r := out.result
	assert.EqualValues(t, 7, r.ExitCode, "a non-zero exit is a result, not an error")
	require.Len(t, r.OutputFiles, 1)
	got, err := collect(t, c, r.OutputFiles[0].Digest, r.StdoutDigest, r.StderrDigest)
	require.NoError(t, err)
	assert.Equal(t, "input\n", string(got[digestKey(r.OutputFiles[0].Digest)]))
	assert.Equal(t, "to-stdout\n", string(got[digestKey(r.StdoutDigest)]))
	assert.Equal(t, "to-stderr\n", string(got[digestKey(r.StderrDigest)]))

	m := r.ExecutionMetadata
	assert.Equal(t, "test-worker", m.Worker)
	stamps := []time.Time{
		m.WorkerStartTimestamp.AsTime(), m.InputFetchStartTimestamp.AsTime(), m.InputFetchCompletedTimestamp.AsTime(),
		m.ExecutionStartTimestamp.AsTime(), m.ExecutionCompletedTimestamp.AsTime(),
		m.OutputUploadStartTimestamp.AsTime(), m.OutputUploadCompletedTimestamp.AsTime(), m.WorkerCompletedTimestamp.AsTime(),
	}
	for i := 1; i < len(stamps); i++ {
		assert.False(t, stamps[i].Before(stamps[i-1]), "timestamp %d before %d", i, i-1)
	}
}

// A corrupt input is never used: the command does not run, and the engine
// hears FAILED_PRECONDITION with a MISSING violation naming the blob, which
// makes Bazel upload it again.
func TestExecuteRefusesACorruptInput(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, in := testAction(t, f, `cp in.txt out/copy.txt`, nil, 0)
	f.corrupt(in)
	e := testExecutor(t, c, 0)
	out := e.execute(context.Background(), "lease-1", payload)

	require.EqualValues(t, codes.FailedPrecondition, out.status.Code)
	assert.Nil(t, out.result)
	assert.Contains(t, out.status.Message, "corrupt blob "+digestString(in))
	require.Len(t, out.status.Details, 1)
	pf := &errdetails.PreconditionFailure{}
	require.NoError(t, out.status.Details[0].UnmarshalTo(pf))
	assert.Equal(t, "MISSING", pf.Violations[0].Type)
	assert.Equal(t, "blobs/"+digestString(in), pf.Violations[0].Subject)
	entries, err := os.ReadDir(e.workDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the action's directory is removed")
}

func TestExecuteRefusesAnotherPlatform(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, _ := testAction(t, f, `exit 0`, props("cubridge-rootfs", "0123456789ab"), 0)
	out := testExecutor(t, c, 0).execute(context.Background(), "lease-1", payload)
	assert.EqualValues(t, codes.FailedPrecondition, out.status.Code)
	assert.Contains(t, out.status.Message, "does not offer the action's platform")

	payload, _ = testAction(t, f, `exit 0`, props("gpu", "1"), 0)
	assert.EqualValues(t, codes.FailedPrecondition, testExecutor(t, c, 0).execute(context.Background(), "l", payload).status.Code)
	assert.EqualValues(t, codes.OK, testExecutor(t, c, 1).execute(context.Background(), "l", payload).status.Code)
}

func TestExecuteHonoursTheActionTimeout(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, _ := testAction(t, f, `echo started; sleep 30`, nil, 500*time.Millisecond)
	started := time.Now()
	out := testExecutor(t, c, 0).execute(context.Background(), "lease-1", payload)
	assert.Less(t, time.Since(started), 10*time.Second)
	require.EqualValues(t, codes.DeadlineExceeded, out.status.Code)
	require.NotNil(t, out.result, "a timed-out action still reports what it wrote")
	got, err := collect(t, c, out.result.StdoutDigest)
	require.NoError(t, err)
	assert.Equal(t, "started\n", string(got[digestKey(out.result.StdoutDigest)]))
}

func TestExecuteCapsTheTimeout(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, _ := testAction(t, f, `sleep 30`, nil, time.Hour)
	e := testExecutor(t, c, 0)
	e.maxTimeout = 300 * time.Millisecond
	out := e.execute(context.Background(), "lease-1", payload)
	assert.EqualValues(t, codes.DeadlineExceeded, out.status.Code)
}

func TestExecuteTakesTheActionItselfAsPayload(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, _ := testAction(t, f, `cp in.txt out/copy.txt`, nil, 0)
	d := &repb.Digest{}
	require.NoError(t, payload.UnmarshalTo(d))
	action := &repb.Action{}
	require.NoError(t, c.readMessage(context.Background(), d, action))
	inline, err := anypb.New(action)
	require.NoError(t, err)
	out := testExecutor(t, c, 0).execute(context.Background(), "lease-1", inline)
	require.EqualValues(t, codes.OK, out.status.Code, out.status.Message)
	assert.Len(t, out.result.OutputFiles, 1)
}

// An action that sets no TMPDIR gets a fresh directory of its own, which
// goes away with the action; one that sets TMPDIR keeps its own.
func TestExecuteGivesTheActionATemporaryDirectory(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	payload, _ := testAction(t, f, `test -d "$TMPDIR" && test -w "$TMPDIR" && printf %s "$TMPDIR" >out/copy.txt`, nil, 0)
	e := testExecutor(t, c, 0)
	out := e.execute(context.Background(), "lease-1", payload)
	require.EqualValues(t, codes.OK, out.status.Code, out.status.Message)
	require.EqualValues(t, 0, out.result.ExitCode)
	got, err := collect(t, c, out.result.OutputFiles[0].Digest)
	require.NoError(t, err)
	tmp := string(got[digestKey(out.result.OutputFiles[0].Digest)])
	assert.True(t, strings.HasPrefix(tmp, e.workDir+"/"), "TMPDIR %q is not under the work directory %s", tmp, e.workDir)
	assert.NoDirExists(t, tmp, "the action's temporary directory outlives it")

	env := actionEnv([]*repb.Command_EnvironmentVariable{{Name: "TMPDIR", Value: "/mine"}}, "/fresh")
	assert.Equal(t, []string{"TMPDIR=/mine"}, env)
}
