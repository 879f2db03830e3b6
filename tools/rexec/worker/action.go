package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// executor runs the actions of leases.
type executor struct {
	cas      *casClient
	cache    *fileCache // nil: no cache
	platform platform
	name     string // reported as ExecutedActionMetadata.worker
	rootfs   string // "" runs commands on this machine
	workDir  string // fresh directories for actions are made here
	isolate  bool
	// defaultTimeout applies to actions without one; maxTimeout caps all.
	defaultTimeout time.Duration
	maxTimeout     time.Duration
	keepFailed     bool // keep the directory of a failed action, for debugging
	journal        *journal
}

// outcome is a lease's end: the status for the lease and, when the command
// ran, its ActionResult.
type outcome struct {
	status *spb.Status
	result *repb.ActionResult
}

// actionFromPayload reads the lease's payload: BuildGrid sends the Action
// itself, or its digest.
func (e *executor) actionFromPayload(ctx context.Context, payload *anypb.Any) (*repb.Action, *repb.Digest, error) {
	action := &repb.Action{}
	if payload.MessageIs(action) {
		if err := payload.UnmarshalTo(action); err != nil {
			return nil, nil, err
		}
		data, err := proto.MarshalOptions{Deterministic: true}.Marshal(action)
		if err != nil {
			return nil, nil, err
		}
		return action, digestOf(data), nil
	}
	d := &repb.Digest{}
	if !payload.MessageIs(d) {
		return nil, nil, fmt.Errorf("lease payload is a %s, neither an Action nor a Digest", payload.GetTypeUrl())
	}
	if err := payload.UnmarshalTo(d); err != nil {
		return nil, nil, err
	}
	if err := e.cas.readMessage(ctx, d, action); err != nil {
		return nil, nil, err
	}
	return action, d, nil
}

// execute runs the action of a lease and says how it ended. ctx is cancelled
// when the lease is.
func (e *executor) execute(ctx context.Context, leaseID string, payload *anypb.Any) outcome {
	meta := &repb.ExecutedActionMetadata{Worker: e.name, WorkerStartTimestamp: timestamppb.Now()}
	action, actionDigest, err := e.actionFromPayload(ctx, payload)
	if err != nil {
		return failure(err, "reading the action")
	}
	entry := journalEntry{Worker: e.name, Lease: leaseID, Action: actionDigest.Hash, Start: time.Now()}
	out := e.run(ctx, action, meta, &entry)
	end := time.Now()
	entry.Event, entry.End = "end", &end
	entry.Status = codes.Code(out.status.GetCode()).String()
	if out.result != nil {
		entry.ExitCode = int(out.result.ExitCode)
	}
	e.journal.record(entry)
	return out
}

func (e *executor) run(ctx context.Context, action *repb.Action, meta *repb.ExecutedActionMetadata, entry *journalEntry) outcome {
	if err := checkDigest(action.CommandDigest); err != nil {
		return failure(status.Errorf(codes.InvalidArgument, "the action's command: %v", err), "")
	}
	if err := checkDigest(action.InputRootDigest); err != nil {
		return failure(status.Errorf(codes.InvalidArgument, "the action's input root: %v", err), "")
	}
	dir, err := os.MkdirTemp(e.workDir, "action-")
	if err != nil {
		return failure(err, "making the action's directory")
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(dir)
		}
	}()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return failure(err, "making the input root")
	}

	meta.InputFetchStartTimestamp = timestamppb.Now()
	cmd := &repb.Command{}
	if err := e.cas.readMessage(ctx, action.CommandDigest, cmd); err != nil {
		return failure(err, "reading the command")
	}
	platform := action.Platform
	if platform == nil {
		platform = cmd.Platform //nolint:staticcheck // clients before REAPI 2.2 put it there
	}
	if err := e.platform.check(platform); err != nil {
		return failure(status.Error(codes.FailedPrecondition, err.Error()), "")
	}
	if len(cmd.Arguments) == 0 {
		return failure(status.Error(codes.InvalidArgument, "the command has no arguments"), "")
	}
	entry.Argv0 = cmd.Arguments[0]
	spec := outputSpecOf(cmd)
	if all := spec.all(); len(all) > 0 {
		entry.Output = all[0]
	}
	entry.Event = "start"
	e.journal.record(*entry)
	stats, err := materialize(ctx, e.cas, e.cache, action.InputRootDigest, root)
	entry.InputFiles, entry.InputsCached, entry.InputBytesFetched = stats.files, stats.cached, stats.fetched
	if err != nil {
		return failure(err, "fetching the input root")
	}
	if err := checkRelative(cmd.WorkingDirectory); cmd.WorkingDirectory != "" && err != nil {
		return failure(status.Errorf(codes.InvalidArgument, "working directory: %v", err), "")
	}
	workDir := filepath.Join(root, cmd.WorkingDirectory)
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return failure(err, "making the working directory")
	}
	if err := prepareOutputs(workDir, spec); err != nil {
		return failure(status.Error(codes.InvalidArgument, err.Error()), "")
	}
	meta.InputFetchCompletedTimestamp = timestamppb.Now()

	timeout := e.defaultTimeout
	if t := action.Timeout.AsDuration(); action.Timeout != nil && t > 0 {
		timeout = t
	}
	if e.maxTimeout > 0 && timeout > e.maxTimeout {
		timeout = e.maxTimeout
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		return failure(err, "making the action's temporary directory")
	}
	env := actionEnv(cmd.EnvironmentVariables, tmp)
	meta.ExecutionStartTimestamp = timestamppb.Now()
	res, err := runCommand(ctx, runSpec{
		rootfs: e.rootfs, dir: workDir, args: cmd.Arguments, env: env,
		stdout: filepath.Join(dir, "stdout"), stderr: filepath.Join(dir, "stderr"),
		timeout: timeout, isolate: e.isolate,
	})
	meta.ExecutionCompletedTimestamp = timestamppb.Now()
	if errors.Is(err, errNoProgram) {
		return failure(status.Error(codes.FailedPrecondition, err.Error()), "starting the command")
	}
	if err != nil {
		return failure(err, "running the command")
	}
	if res.cancelled {
		return failure(status.Error(codes.Canceled, "the lease was cancelled"), "")
	}
	meta.OutputUploadStartTimestamp = timestamppb.Now()
	collected, err := collectOutputs(workDir, spec)
	if err != nil {
		return failure(status.Error(codes.FailedPrecondition, err.Error()), "collecting the outputs")
	}
	result := collected.result
	result.ExitCode = int32(res.exitCode)
	blobs := collected.blobs
	for _, stream := range []struct {
		path   string
		digest **repb.Digest
	}{{filepath.Join(dir, "stdout"), &result.StdoutDigest}, {filepath.Join(dir, "stderr"), &result.StderrDigest}} {
		d, err := fileDigest(stream.path)
		if err != nil {
			return failure(err, "reading the command's output streams")
		}
		*stream.digest = d
		blobs = append(blobs, uploadBlob{digest: d, path: stream.path})
	}
	if err := e.cas.upload(ctx, blobs); err != nil {
		return failure(err, "uploading the outputs")
	}
	meta.OutputUploadCompletedTimestamp = timestamppb.Now()
	meta.WorkerCompletedTimestamp = timestamppb.Now()
	result.ExecutionMetadata = meta
	keep = e.keepFailed && res.exitCode != 0

	st := &spb.Status{Code: int32(codes.OK)}
	if res.timedOut {
		// REAPI: a timed-out action is DEADLINE_EXCEEDED, with what it wrote.
		st = &spb.Status{Code: int32(codes.DeadlineExceeded),
			Message: fmt.Sprintf("the action timed out after %s", timeout)}
	}
	return outcome{status: st, result: result}
}

// actionEnv is the command's environment, plus TMPDIR naming a fresh
// directory of the action's own when the command sets none: Bazel gives its
// local actions one too, and temporary files then go with the action.
func actionEnv(vars []*repb.Command_EnvironmentVariable, tmp string) []string {
	env := make([]string, 0, len(vars)+1)
	hasTmp := false
	for _, v := range vars {
		env = append(env, v.Name+"="+v.Value)
		hasTmp = hasTmp || v.Name == "TMPDIR"
	}
	if !hasTmp {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}

// failure turns an error into the lease's status. A corrupt blob becomes
// FAILED_PRECONDITION with a MISSING violation, as REAPI asks for inputs the
// worker could not use: the client then uploads it again. Transport errors
// keep their gRPC code (UNAVAILABLE: the engine retries the action).
func failure(err error, doing string) outcome {
	msg := err.Error()
	if doing != "" {
		msg = doing + ": " + msg
	}
	var corrupt *corruptBlobError
	var missing *missingBlobError
	var blob *repb.Digest
	var why string
	switch {
	case errors.As(err, &corrupt):
		blob, why = corrupt.want, "the blob in the CAS does not match its digest"
	case errors.As(err, &missing):
		blob, why = missing.digest, "the blob is not in the CAS"
	}
	if blob != nil {
		st := &spb.Status{Code: int32(codes.FailedPrecondition), Message: msg}
		violation := &errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{
			Type: "MISSING", Subject: "blobs/" + digestString(blob), Description: why,
		}}}
		if detail, err := anypb.New(violation); err == nil {
			st.Details = append(st.Details, detail)
		}
		return outcome{status: st}
	}
	code := codes.Internal
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		code = s.Code()
		msg = s.Message()
		if doing != "" {
			msg = doing + ": " + msg
		}
	}
	if errors.Is(err, context.Canceled) {
		code = codes.Canceled
	}
	return outcome{status: &spb.Status{Code: int32(code), Message: msg}}
}
