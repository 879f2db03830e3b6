package main

import (
	"context"
	"sync"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// fakeBots hands out one lease and records what the bot reports.
type fakeBots struct {
	rwpb.UnimplementedBotsServer
	mu       sync.Mutex
	lease    *rwpb.Lease
	given    time.Time
	drop     bool // take the lease back once the bot ran it for a while
	refuse   bool // answer Unauthenticated
	seen     []*rwpb.BotSession
	reported chan *rwpb.Lease // leases the bot reported COMPLETED
}

func (f *fakeBots) answer(s *rwpb.BotSession) *rwpb.BotSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, proto.Clone(s).(*rwpb.BotSession))
	out := &rwpb.BotSession{Name: "main/bot-1", BotId: s.BotId, Status: s.Status, Version: "1"}
	for _, l := range s.Leases {
		switch {
		case l.State == rwpb.LeaseState_COMPLETED:
			f.reported <- l
		case f.drop && time.Since(f.given) > 300*time.Millisecond:
			// taken back: left out of the answer
		default:
			out.Leases = append(out.Leases, &rwpb.Lease{Id: l.Id, State: rwpb.LeaseState_ACTIVE})
		}
	}
	if f.given.IsZero() {
		f.given = time.Now()
		out.Leases = append(out.Leases, f.lease)
	}
	return out
}

func (f *fakeBots) CreateBotSession(_ context.Context, req *rwpb.CreateBotSessionRequest) (*rwpb.BotSession, error) {
	if f.refuse {
		return nil, status.Error(codes.Unauthenticated, "No valid authorization or authentication provided")
	}
	return f.answer(req.BotSession), nil
}

func (f *fakeBots) UpdateBotSession(ctx context.Context, req *rwpb.UpdateBotSessionRequest) (*rwpb.BotSession, error) {
	resp := f.answer(req.BotSession)
	if len(resp.Leases) == 0 {
		// Nothing to do: wait like an engine's long poll would.
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	return resp, nil
}

func (f *fakeBots) last() *rwpb.BotSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[len(f.seen)-1]
}

// startBot serves a fake engine (CAS + bots) with one lease running script,
// and runs a bot against it until the test ends or stop is called.
func startBot(t *testing.T, script string, configure func(*fakeBots)) (fb *fakeBots, stop func() error) {
	cas := newFakeCAS()
	fb = &fakeBots{reported: make(chan *rwpb.Lease, 4)}
	if configure != nil {
		configure(fb)
	}
	conn := serveFake(t, func(s *grpc.Server) {
		repb.RegisterContentAddressableStorageServer(s, cas)
		bspb.RegisterByteStreamServer(s, cas)
		rwpb.RegisterBotsServer(s, fb)
	})
	payload, _ := testAction(t, cas, script, nil, 0)
	fb.lease = &rwpb.Lease{Id: "main/job-1", State: rwpb.LeaseState_ACTIVE, Payload: payload}
	b := &bot{
		client: rwpb.NewBotsClient(conn), exec: testExecutor(t, newCASClient(conn, "main", 0), 0),
		instance: "main", botID: "bot-1", capacity: 1,
		pollTimeout: 5 * time.Second, heartbeat: 50 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(context.Background())
	errCh := make(chan error, 1)
	go func() { errCh <- b.run(ctx) }()
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-errCh:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the bot did not stop")
			return nil
		}
	}
	t.Cleanup(func() { stop() })
	return fb, stop
}

func waitReport(t *testing.T, fb *fakeBots) *rwpb.Lease {
	select {
	case l := <-fb.reported:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("the bot reported no completed lease")
		return nil
	}
}

func TestBotRunsALeaseAndReportsItsResult(t *testing.T) {
	fb, _ := startBot(t, `cp in.txt out/copy.txt; exit 4`, nil)
	l := waitReport(t, fb)
	assert.Equal(t, "main/job-1", l.Id)
	assert.EqualValues(t, codes.OK, l.Status.GetCode())
	result := &repb.ActionResult{}
	require.NoError(t, l.Result.UnmarshalTo(result))
	assert.EqualValues(t, 4, result.ExitCode)
	assert.Len(t, result.OutputFiles, 1)

	s := fb.last()
	props := map[string][]string{}
	for _, p := range s.Worker.Devices[0].Properties {
		props[p.Key] = append(props[p.Key], p.Value)
	}
	assert.Equal(t, []string{"Linux"}, props["OSFamily"])
	assert.Equal(t, []string{testHash}, props["cubridge-rootfs"])
	assert.Equal(t, "1", s.Worker.Configs[0].Value)
}

// A lease the engine takes back is stopped, and never reported.
func TestBotStopsALeaseTheEngineTakesBack(t *testing.T) {
	marker := uniqueMarker(t)
	_, _ = startBot(t, `bash -c 'exec -a `+marker+` sleep 60'`, func(f *fakeBots) { f.drop = true })
	deadline := time.Now().Add(5 * time.Second)
	for !processNamed(t, marker) {
		require.True(t, time.Now().Before(deadline), "the lease's command never ran")
		time.Sleep(20 * time.Millisecond)
	}
	assertNoProcessNamed(t, marker) // stopped within 2 s of being taken back
}

// A worker told to stop hands its running lease back as UNAVAILABLE, so the
// engine retries it elsewhere at once.
func TestBotHandsBackItsLeaseWhenStopped(t *testing.T) {
	marker := uniqueMarker(t)
	fb, stop := startBot(t, `bash -c 'exec -a `+marker+` sleep 60'`, nil)
	deadline := time.Now().Add(5 * time.Second)
	for !processNamed(t, marker) {
		require.True(t, time.Now().Before(deadline), "the lease's command never ran")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, stop())
	l := waitReport(t, fb)
	assert.EqualValues(t, codes.Unavailable, l.Status.GetCode())
	assert.Equal(t, rwpb.BotStatus_BOT_TERMINATING, fb.last().Status)
	assertNoProcessNamed(t, marker)
}

func TestBotGivesUpWhenItsTokenIsRefused(t *testing.T) {
	_, stop := startBot(t, `exit 0`, func(f *fakeBots) { f.refuse = true })
	time.Sleep(200 * time.Millisecond)
	err := stop()
	require.Error(t, err)
	assert.ErrorIs(t, err, errFatal)
	assert.Contains(t, err.Error(), "refused this worker's token")
}
