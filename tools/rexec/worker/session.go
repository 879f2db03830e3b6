package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"time"

	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// bot keeps a bot session with the engine (Remote Workers API): it takes the
// leases the engine assigns, runs their actions, and reports them completed.
type bot struct {
	client   rwpb.BotsClient
	exec     *executor
	instance string // the session's parent
	botID    string
	capacity int
	// pollTimeout is the deadline of a call that may wait for work; the
	// engine answers before it (BuildGrid: 80% of it, at most its keepalive).
	pollTimeout time.Duration
	// heartbeat is how often a bot whose capacity is full reports in.
	heartbeat time.Duration
	ready     func() // called after each session is created
}

// leaseRun is a lease whose action is running.
type leaseRun struct {
	id     string
	cancel context.CancelFunc
}

// finishedLease is a lease whose action ended.
type finishedLease struct {
	id  string
	out outcome
}

// createTimeout is CreateBotSession's deadline (see session).
const createTimeout = 3500 * time.Millisecond

// errFatal marks errors that another try cannot fix (a refused token, a
// platform the engine does not know): the worker exits.
var errFatal = errors.New("fatal")

func (b *bot) worker() *rwpb.Worker {
	return &rwpb.Worker{
		Devices: []*rwpb.Device{{Handle: b.botID, Properties: b.exec.platform.properties()}},
		Configs: []*rwpb.Worker_Config{{Key: "capacity", Value: strconv.Itoa(b.capacity)}},
	}
}

// run keeps a session until ctx ends, making a new one whenever the engine
// forgets the old (a restart, an expired session).
func (b *bot) run(ctx context.Context) error {
	backoff := time.Second
	for {
		err := b.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errFatal) {
			return err
		}
		log.Printf("bot session ended: %v; a new one in %s", err, backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		if backoff < 10*time.Second {
			backoff *= 2
		}
	}
}

// classify sorts an RPC error: fatal, transient (retry the same call), or
// the session is gone (start a new one).
func (b *bot) classify(err error, during string) (transient bool, out error) {
	switch status.Code(err) {
	case codes.Unauthenticated, codes.PermissionDenied:
		return false, fmt.Errorf("%w: %s: the engine refused this worker's token: %v", errFatal, during, err)
	case codes.FailedPrecondition:
		if during == "CreateBotSession" {
			return false, fmt.Errorf("%w: %s: the engine schedules no work for this worker's platform %v: %v",
				errFatal, during, b.exec.platform.properties(), err)
		}
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Canceled:
		return true, fmt.Errorf("%s: %w", during, err)
	}
	return false, fmt.Errorf("%s: %w", during, err)
}

// session creates one bot session and serves it until it fails.
func (b *bot) session(ctx context.Context) error {
	var resp *rwpb.BotSession
	for {
		// A short deadline: BuildGrid then answers at once instead of
		// waiting for work (it waits 80% of the deadline when that is
		// above 3 s), so the session is known to exist right away.
		callCtx, cancel := context.WithTimeout(ctx, createTimeout)
		var err error
		resp, err = b.client.CreateBotSession(callCtx, &rwpb.CreateBotSessionRequest{
			Parent:     b.instance,
			BotSession: &rwpb.BotSession{BotId: b.botID, Status: rwpb.BotStatus_OK, Worker: b.worker()},
		})
		cancel()
		if err == nil {
			break
		}
		transient, err := b.classify(err, "CreateBotSession")
		if !transient || ctx.Err() != nil {
			return err
		}
		log.Printf("%v; trying again", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	log.Printf("bot session %s created (bot %s, capacity %d, properties %v)",
		resp.Name, b.botID, b.capacity, b.exec.platform.properties())
	if b.ready != nil {
		b.ready()
	}

	running := map[string]*leaseRun{}
	done := make(chan finishedLease)
	ended := make(chan struct{})  // closed when this session ends
	var completed []finishedLease // ended, not yet acknowledged by the engine
	defer func() {
		close(ended)
		for _, r := range running {
			r.cancel()
		}
	}()
	for {
		b.reconcile(ctx, resp.Leases, running, completed, done, ended)
		var req *rwpb.BotSession
		// Collect what ended; wait for something to report unless there is
		// room for work (then the call itself waits for work).
		if len(completed) == 0 && len(running) >= b.capacity {
			select {
			case <-ctx.Done():
				return b.terminate(resp, running, completed)
			case f := <-done:
				completed = append(completed, f)
				delete(running, f.id)
			case <-time.After(b.heartbeat):
			}
		}
		completed, running = drain(done, completed, running)
		req = b.request(resp, running, completed)

		callCtx, cancel := context.WithTimeout(ctx, b.pollTimeout)
		type answer struct {
			s   *rwpb.BotSession
			err error
		}
		answerCh := make(chan answer, 1)
		go func() {
			s, err := b.client.UpdateBotSession(callCtx, &rwpb.UpdateBotSessionRequest{Name: req.Name, BotSession: req})
			answerCh <- answer{s, err}
		}()
		var a answer
		select {
		case a = <-answerCh:
		case f := <-done:
			// An action ended while the call waits for work: end the wait so
			// that the result is reported now, not at the poll's deadline.
			cancel()
			a = <-answerCh
			completed = append(completed, f)
			delete(running, f.id)
			if status.Code(a.err) == codes.Canceled {
				continue
			}
		case <-ctx.Done():
			cancel()
			<-answerCh
			return b.terminate(resp, running, completed)
		}
		cancel()
		if a.err != nil {
			transient, err := b.classify(a.err, "UpdateBotSession")
			if !transient {
				return err
			}
			log.Printf("%v; trying again", err)
			select {
			case <-ctx.Done():
				return b.terminate(resp, running, completed)
			case <-time.After(time.Second):
			}
			continue
		}
		// The engine has the completed leases that this call carried.
		completed = withoutReported(completed, req)
		resp = a.s
	}
}

// drain takes every ended lease already waiting on done.
func drain(done chan finishedLease, completed []finishedLease, running map[string]*leaseRun) ([]finishedLease, map[string]*leaseRun) {
	for {
		select {
		case f := <-done:
			completed = append(completed, f)
			delete(running, f.id)
		default:
			return completed, running
		}
	}
}

func withoutReported(completed []finishedLease, req *rwpb.BotSession) []finishedLease {
	sent := map[string]bool{}
	for _, l := range req.Leases {
		if l.State == rwpb.LeaseState_COMPLETED {
			sent[l.Id] = true
		}
	}
	var rest []finishedLease
	for _, f := range completed {
		if !sent[f.id] {
			rest = append(rest, f)
		}
	}
	return rest
}

// reconcile starts the leases the engine assigned and cancels those it took
// back (a lease missing from its answer is no longer ours).
// A lease that ended here but whose end the engine has not acknowledged yet
// is not started again.
func (b *bot) reconcile(ctx context.Context, leases []*rwpb.Lease, running map[string]*leaseRun,
	completed []finishedLease, done chan<- finishedLease, ended <-chan struct{}) {
	finished := map[string]bool{}
	for _, f := range completed {
		finished[f.id] = true
	}
	assigned := map[string]bool{}
	for _, l := range leases {
		switch l.State {
		case rwpb.LeaseState_PENDING, rwpb.LeaseState_ACTIVE:
			assigned[l.Id] = true
			if running[l.Id] == nil && !finished[l.Id] {
				b.start(ctx, l, running, done, ended)
			}
		case rwpb.LeaseState_CANCELLED:
			if r := running[l.Id]; r != nil {
				log.Printf("lease %s cancelled by the engine", l.Id)
				r.cancel()
				delete(running, l.Id)
			}
		}
	}
	for id, r := range running {
		if !assigned[id] {
			log.Printf("lease %s is no longer assigned to this bot; stopping it", id)
			r.cancel()
			delete(running, id)
		}
	}
}

func (b *bot) start(ctx context.Context, l *rwpb.Lease, running map[string]*leaseRun, done chan<- finishedLease, ended <-chan struct{}) {
	leaseCtx, cancel := context.WithCancel(ctx)
	running[l.Id] = &leaseRun{id: l.Id, cancel: cancel}
	payload := proto.Clone(l.Payload).(*anypb.Any)
	go func() {
		defer cancel()
		started := time.Now()
		out := b.exec.execute(leaseCtx, l.Id, payload)
		exit := "-"
		if out.result != nil {
			exit = strconv.Itoa(int(out.result.ExitCode))
		}
		log.Printf("lease %s: %s, exit code %s, %.2fs", l.Id, codes.Code(out.status.GetCode()), exit, time.Since(started).Seconds())
		if out.status.GetCode() != int32(codes.OK) {
			log.Printf("lease %s: %s", l.Id, out.status.GetMessage())
		}
		select {
		case done <- finishedLease{id: l.Id, out: out}:
		case <-ended: // the session is gone; so is the lease
		}
	}()
}

// request is the session to send: running leases ACTIVE, ended ones
// COMPLETED with their status and result.
func (b *bot) request(last *rwpb.BotSession, running map[string]*leaseRun, completed []finishedLease) *rwpb.BotSession {
	req := &rwpb.BotSession{
		Name: last.Name, BotId: b.botID, Status: rwpb.BotStatus_OK, Worker: b.worker(), Version: last.Version,
	}
	for id := range running {
		req.Leases = append(req.Leases, &rwpb.Lease{Id: id, State: rwpb.LeaseState_ACTIVE})
	}
	for _, f := range completed {
		if f.out.status.GetCode() == int32(codes.Canceled) {
			continue // the engine took it back; nothing to report
		}
		l := &rwpb.Lease{Id: f.id, State: rwpb.LeaseState_COMPLETED, Status: f.out.status}
		if f.out.result != nil {
			if result, err := anypb.New(f.out.result); err == nil {
				l.Result = result
			}
		}
		req.Leases = append(req.Leases, l)
	}
	return req
}

// terminate tells the engine the bot is going away: what ran is reported
// UNAVAILABLE (the engine retries it on another worker at once, instead of
// waiting for this session to expire), what ended is reported as it ended.
func (b *bot) terminate(last *rwpb.BotSession, running map[string]*leaseRun, completed []finishedLease) error {
	for id, r := range running {
		r.cancel()
		completed = append(completed, finishedLease{id: id, out: outcome{
			status: &spb.Status{Code: int32(codes.Unavailable), Message: "the worker is shutting down"},
		}})
	}
	req := b.request(last, nil, completed)
	req.Status = rwpb.BotStatus_BOT_TERMINATING
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := b.client.UpdateBotSession(ctx, &rwpb.UpdateBotSessionRequest{Name: req.Name, BotSession: req}); err != nil {
		log.Printf("telling the engine that this bot terminates: %v", err)
	}
	return nil
}
