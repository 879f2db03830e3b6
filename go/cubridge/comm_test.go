package cubridge_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// commAPIRows: the bad calls of the Comm API for TestAPIWalk (the same answer
// on every backend: they are refused before any device or NCCL is touched).
func commAPIRows(f *walkFixture) map[string][]badCall {
	var nilComm *cubridge.Comm
	sum := cubridge.ReduceSum
	return map[string][]badCall{
		"NCCLVersion":    nil, // no input; ErrDriver without NCCL (TestNCCLVersion)
		"SetNCCLLibrary": nil, // any path is accepted until NCCL is loaded
		"NewUniqueID":    nil,
		"NewLocalComms": {
			{"negative device", inv, func() error { return ignoreValue(cubridge.NewLocalComms(-1)) }},
			{"device twice", inv, func() error { return ignoreValue(cubridge.NewLocalComms(0, 0)) }},
		},
		"NewComm": {
			{"size 0", inv, func() error { return ignoreValue(cubridge.NewComm(cubridge.UniqueID{}, 0, 0, 0)) }},
			{"rank = size", inv, func() error { return ignoreValue(cubridge.NewComm(cubridge.UniqueID{}, 2, 2, 0)) }},
			{"negative rank", inv, func() error { return ignoreValue(cubridge.NewComm(cubridge.UniqueID{}, 2, -1, 0)) }},
			{"device -2", inv, func() error { return ignoreValue(cubridge.NewComm(cubridge.UniqueID{}, 1, 0, -2)) }},
		},
		"Comm.Rank":   nil, // nil-safe getters (TestCommNilReceiver)
		"Comm.Size":   nil,
		"Comm.Device": nil,
		"Comm.Close":  nil,
		"Comm.Abort":  nil, // nil and closed comms: no-ops (TestCommNilReceiver, TestCommAbortAndAsyncError)
		"Comm.AsyncError": {
			{"nil comm", inv, func() error { return nilComm.AsyncError() }},
		},
		"Group": {
			{"nil f", inv, func() error { return cubridge.Group(nil) }},
		},
		"AllReduce": {
			{"nil comm", inv, func() error { return cubridge.AllReduce(nilComm, f.dev, f.dev, sum, nil) }},
			{"short recv", inv, func() error { return cubridge.AllReduce(nilComm, f.buf, f.short, sum, nil) }},
		},
		"Broadcast": {
			{"nil comm", inv, func() error { return cubridge.Broadcast(nilComm, f.dev, f.dev, 0, nil) }},
		},
		"ReduceScatter": {
			{"nil comm", inv, func() error { return cubridge.ReduceScatter(nilComm, f.dev, f.dev, sum, nil) }},
		},
		"AllGather": {
			{"nil comm", inv, func() error { return cubridge.AllGather(nilComm, f.dev, f.dev, nil) }},
		},
		"Comm.AllReducePtr": {
			{"nil comm", inv, func() error { return nilComm.AllReducePtr(cubridge.Float32, 0, 0, 0, sum, nil) }},
		},
		"Comm.BroadcastPtr": {
			{"nil comm", inv, func() error { return nilComm.BroadcastPtr(cubridge.Float32, 0, 0, 0, 0, nil) }},
		},
		"Comm.ReduceScatterPtr": {
			{"nil comm", inv, func() error { return nilComm.ReduceScatterPtr(cubridge.Float32, 0, 0, 0, sum, nil) }},
		},
		"Comm.AllGatherPtr": {
			{"nil comm", inv, func() error { return nilComm.AllGatherPtr(cubridge.Float32, 0, 0, -1, nil) }},
		},
		"ReduceOp.String": nil,
	}
}

func TestReduceOpNames(t *testing.T) {
	assert.Equal(t, "sum", cubridge.ReduceSum.String())
	assert.Equal(t, "prod", cubridge.ReduceProd.String())
	assert.Equal(t, "max", cubridge.ReduceMax.String())
	assert.Equal(t, "min", cubridge.ReduceMin.String())
	assert.Equal(t, "reduce_op(9)", cubridge.ReduceOp(9).String())
}

func TestCommNilReceiver(t *testing.T) {
	var c *cubridge.Comm
	assert.Equal(t, 0, c.Rank())
	assert.Equal(t, 0, c.Size())
	assert.Equal(t, -1, c.Device())
	assert.NoError(t, c.Close())
	assert.NoError(t, c.Abort())
	err := c.AsyncError()
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "comm is a nil comm")
}

// TestNCCLVersion: with NCCL on the search path (CUBRIDGE_NCCL_LIBRARY on the
// GPU host) a 2.x version; without it ErrDriver saying how to install it.
func TestNCCLVersion(t *testing.T) {
	v, err := cubridge.NCCLVersion()
	if err == nil {
		assert.GreaterOrEqual(t, v, 21900)
		assert.Equal(t, 2, v/10000)
		return
	}
	require.ErrorIs(t, err, cubridge.ErrDriver)
	assert.Contains(t, err.Error(), "NCCL not available")
	// A build without CUDA (mode=none) has no NCCL to install.
	if os.Getenv("CUBRIDGE_NCCL_LIBRARY") == "" && !strings.Contains(err.Error(), "has no CUDA") {
		major, _ := cubridge.CUDAVersion() // the NCCL wheel of the CUDA major built with
		assert.Contains(t, err.Error(), fmt.Sprintf("install nvidia-nccl-cu%d (pip install cubridge-cu%d[nccl])", major, major))
	}
	stillWorks(t)
}

// TestCommCPUBackend: every way to get a communicator says NCCL is not
// available on the CPU backend, and the library keeps working.
func TestCommCPUBackend(t *testing.T) {
	if b, err := cubridge.Backend(); err != nil || b != cubridge.BackendCPU {
		t.Skip("CUDA backend: see TestCommLocal")
	}
	refused := func(err error) {
		t.Helper()
		require.ErrorIs(t, err, cubridge.ErrNoDevice)
		assert.Contains(t, err.Error(), "NCCL not available on the CPU backend")
	}
	_, err := cubridge.NewLocalComms()
	refused(err)
	_, err = cubridge.NewLocalComms(0)
	refused(err)
	_, err = cubridge.NewUniqueID()
	refused(err)
	_, err = cubridge.NewComm(cubridge.UniqueID{}, 1, 0, 0)
	refused(err)
	ran := false
	refused(cubridge.Group(func() error { ran = true; return nil }))
	assert.False(t, ran, "Group does not run f when the group cannot start")
	stillWorks(t)
}

// ---- on a GPU with NCCL (the GPU host; skipped elsewhere) ----------------

func localComms(t *testing.T) []*cubridge.Comm {
	t.Helper()
	if b, err := cubridge.Backend(); err != nil || b != cubridge.BackendCUDA {
		t.Skip("needs the CUDA backend")
	}
	if _, err := cubridge.NCCLVersion(); err != nil {
		t.Skipf("NCCL not loadable (set CUBRIDGE_NCCL_LIBRARY): %v", err)
	}
	comms, err := cubridge.NewLocalComms()
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, c := range comms {
			assert.NoError(t, c.Close())
		}
	})
	return comms
}

// perRank allocates one device buffer per comm, on its device, holding
// fill(rank, i) for i < n.
func perRank(t *testing.T, comms []*cubridge.Comm, n int, fill func(rank, i int) float32) []*cubridge.Buffer[float32] {
	t.Helper()
	bufs := make([]*cubridge.Buffer[float32], len(comms))
	for r, c := range comms {
		b, err := cubridge.NewDevice[float32](n, cubridge.OnDevice(c.Device()))
		require.NoError(t, err)
		t.Cleanup(func() { b.Free() })
		host := make([]float32, n)
		for i := range host {
			host[i] = fill(r, i)
		}
		require.NoError(t, b.CopyFrom(host))
		bufs[r] = b
	}
	return bufs
}

func readBack(t *testing.T, b *cubridge.Buffer[float32]) []float32 {
	t.Helper()
	out := make([]float32, b.Len())
	require.NoError(t, b.CopyTo(out))
	return out
}

// TestCommLocal: every collective over all local devices, one goroutine per
// device and one goroutine with Group, against values computed here.
func TestCommLocal(t *testing.T) {
	comms := localComms(t)
	size := len(comms)
	const n = 1000
	val := func(r, i int) float32 { return float32(r+1) * float32(i%7+1) }
	for _, tc := range []struct {
		op   cubridge.ReduceOp
		want func(i int) float32
	}{
		{cubridge.ReduceSum, func(i int) float32 { return float32(size*(size+1)/2) * float32(i%7+1) }},
		{cubridge.ReduceMax, func(i int) float32 { return float32(size) * float32(i%7+1) }},
		{cubridge.ReduceMin, func(i int) float32 { return float32(i%7 + 1) }},
		{cubridge.ReduceProd, func(i int) float32 {
			p := float32(1)
			for r := 0; r < size; r++ {
				p *= val(r, i)
			}
			return p
		}},
	} {
		send, recv := perRank(t, comms, n, val), perRank(t, comms, n, func(int, int) float32 { return -1 })
		// One goroutine per device.
		var wg sync.WaitGroup
		errs := make([]error, size)
		for r, c := range comms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[r] = cubridge.AllReduce(c, send[r], recv[r], tc.op, nil)
			}()
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...), tc.op)
		for r := range comms {
			got := readBack(t, recv[r])
			for i := 0; i < n; i += 97 {
				require.Equal(t, tc.want(i), got[i], "%v rank %d element %d", tc.op, r, i)
			}
		}
	}
	// Broadcast from the last rank, in place, driven from one goroutine.
	root := size - 1
	bufs := perRank(t, comms, n, func(r, i int) float32 { return float32(r*n + i) })
	require.NoError(t, cubridge.Group(func() error {
		for r, c := range comms {
			if err := cubridge.Broadcast(c, bufs[r], bufs[r], root, nil); err != nil {
				return err
			}
		}
		return nil
	}))
	for r := range comms {
		got := readBack(t, bufs[r])
		assert.Equal(t, float32(root*n+5), got[5], "rank %d", r)
	}
	// AllGather then ReduceScatter of the gathered data: rank r gets size * slice r.
	small := perRank(t, comms, n, func(r, i int) float32 { return float32(r) })
	big := perRank(t, comms, n*size, func(int, int) float32 { return -1 })
	require.NoError(t, cubridge.Group(func() error {
		for r, c := range comms {
			if err := cubridge.AllGather(c, small[r], big[r], nil); err != nil {
				return err
			}
		}
		return nil
	}))
	for r := range comms {
		got := readBack(t, big[r])
		for k := 0; k < size; k++ {
			assert.Equal(t, float32(k), got[k*n+1], "all_gather rank %d slice %d", r, k)
		}
	}
	require.NoError(t, cubridge.Group(func() error {
		for r, c := range comms {
			if err := cubridge.ReduceScatter(c, big[r], small[r], cubridge.ReduceSum, nil); err != nil {
				return err
			}
		}
		return nil
	}))
	for r := range comms {
		assert.Equal(t, float32(size*r), readBack(t, small[r])[3], "reduce_scatter rank %d", r)
	}
	stillWorks(t)
}

// TestCommAbortAndAsyncError: a healthy comm has no asynchronous error;
// Abort frees it at once (nothing is queued), after which it is closed.
func TestCommAbortAndAsyncError(t *testing.T) {
	comms := localComms(t)
	bufs := perRank(t, comms, 64, func(r, i int) float32 { return 1 })
	require.NoError(t, cubridge.Group(func() error {
		for r, c := range comms {
			if err := cubridge.AllReduce(c, bufs[r], bufs[r], cubridge.ReduceSum, nil); err != nil {
				return err
			}
		}
		return nil
	}))
	for r, c := range comms {
		assert.NoError(t, c.AsyncError(), "rank %d", r)
		assert.Equal(t, float32(len(comms)), readBack(t, bufs[r])[7], "rank %d", r)
	}
	for _, c := range comms {
		require.NoError(t, c.Abort())
		require.NoError(t, c.Abort(), "aborting twice is harmless")
		err := c.AsyncError()
		assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
		assert.ErrorContains(t, err, "comm is already closed")
		assert.NoError(t, c.Close(), "closing an aborted comm does nothing")
	}
	stillWorks(t)
}

// TestCommAbortEndsACollectiveWhosePeerNeverCame (two GPUs): rank 0 queues an
// AllReduce that rank 1 never joins; its stream stays busy until Abort, then
// drains, and both devices compute on.
func TestCommAbortEndsACollectiveWhosePeerNeverCame(t *testing.T) {
	comms := localComms(t)
	if len(comms) < 2 {
		t.Skipf("needs two GPUs, this host has %d", len(comms))
	}
	comms = comms[:2]
	const n = 1 << 20
	bufs := perRank(t, comms, n, func(int, int) float32 { return 1 })
	streams := make([]*cubridge.Stream, 2)
	for r, c := range comms {
		s, err := cubridge.NewStreamOn(c.Device())
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		streams[r] = s
	}
	// Both ranks once (connected), then rank 0 alone.
	require.NoError(t, cubridge.Group(func() error {
		for r, c := range comms {
			if err := cubridge.AllReduce(c, bufs[r], bufs[r], cubridge.ReduceSum, streams[r]); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, s := range streams {
		require.NoError(t, s.Synchronize())
	}
	require.NoError(t, cubridge.AllReduce(comms[0], bufs[0], bufs[0], cubridge.ReduceSum, streams[0]))
	for i := 0; i < 100; i++ { // one second
		done, err := streams[0].Query()
		require.NoError(t, err)
		require.False(t, done, "the collective finished without its peer")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, comms[0].AsyncError(), "a peer that stops calling is no NCCL error")
	require.NoError(t, comms[0].Abort())
	deadline := time.Now().Add(30 * time.Second)
	for {
		done, err := streams[0].Query()
		require.NoError(t, err)
		if done {
			break
		}
		require.True(t, time.Now().Before(deadline), "the stream did not drain within 30 s of the abort")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, comms[1].Abort())
	for r := range comms {
		require.NoError(t, bufs[r].CopyFrom(make([]float32, n)))
		require.NoError(t, cubridge.AddBuffer(bufs[r], bufs[r], bufs[r], streams[r]))
		sum, err := cubridge.SumBuffer(bufs[r], streams[r])
		require.NoError(t, err)
		assert.Equal(t, 0.0, sum, "device %d computes on", comms[r].Device())
	}
}

// TestCommRefusals: buffers of another device, a closed comm, bad ops; the
// library still works after each.
func TestCommRefusals(t *testing.T) {
	comms := localComms(t)
	c0 := comms[0]
	b, err := cubridge.NewDevice[float32](16, cubridge.OnDevice(c0.Device()))
	require.NoError(t, err)
	defer b.Free()
	err = cubridge.AllReduce(c0, b, b, cubridge.ReduceOp(7), nil)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "not a reduction")
	err = cubridge.Broadcast(c0, b, b, c0.Size(), nil)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	if len(comms) > 1 {
		other, err := cubridge.NewDevice[float32](16, cubridge.OnDevice(comms[1].Device()))
		require.NoError(t, err)
		defer other.Free()
		err = cubridge.AllReduce(c0, other, other, cubridge.ReduceSum, nil)
		require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "is on device 1")
		stillWorks(t)
	}
	extra, err := cubridge.NewLocalComms(c0.Device())
	require.NoError(t, err)
	require.NoError(t, extra[0].Close())
	err = cubridge.AllReduce(extra[0], b, b, cubridge.ReduceSum, nil)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "closed")
	stillWorks(t)
}

// TestCollectiveRacingFree: a collective reads its buffers' pointers and
// lengths once they are locked, so a Free on another goroutine is no data race
// (the race-detector build checks; the nil communicator refuses every call).
func TestCollectiveRacingFree(t *testing.T) {
	b, err := cubridge.NewDevice[float32](16)
	require.NoError(t, err)
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			if i == 10 {
				close(started) // Free runs while the calls go on
			}
			assert.Error(t, cubridge.AllReduce(nil, b, b, cubridge.ReduceSum, nil))
		}
	}()
	<-started
	require.NoError(t, b.Free())
	<-done
}
