package cubridge

// #include <stdlib.h>
// #include "cubridge/comm.h"
// #include "cubridge/runtime.h"
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// ReduceOp is the reduction of AllReduce and ReduceScatter.
type ReduceOp int

// The reductions, numbered as in the C ABI (and NCCL).
const (
	ReduceSum  ReduceOp = C.CUBRIDGE_REDUCE_SUM
	ReduceProd ReduceOp = C.CUBRIDGE_REDUCE_PROD
	ReduceMax  ReduceOp = C.CUBRIDGE_REDUCE_MAX
	ReduceMin  ReduceOp = C.CUBRIDGE_REDUCE_MIN
)

// String returns the library's name of o ("sum", ...), or "reduce_op(N)".
func (o ReduceOp) String() string {
	return libraryName(C.cubridge_reduce_op_name(C.int(o)), "reduce_op", int(o))
}

// NCCLVersion loads NCCL if needed and returns its version code (2.28.9 is
// 22809). Without NCCL it returns ErrDriver with a message saying how to
// install it. NCCL is looked for in the path given to SetNCCLLibrary, then in
// $CUBRIDGE_NCCL_LIBRARY, then on the loader's search path.
func NCCLVersion() (int, error) {
	var v C.int
	err := check("nccl_version", func() C.cubridge_status { return C.cubridge_nccl_version(&v) })
	return int(v), err
}

// SetNCCLLibrary names the libnccl.so.2 to load before the default search
// (for example the one in an installed nvidia-nccl-cu13 wheel:
// site-packages/nvidia/nccl/lib/libnccl.so.2). It only matters before NCCL is
// loaded; naming another file afterwards is ErrInvalidArgument.
func SetNCCLLibrary(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return check("nccl_set_library_path", func() C.cubridge_status {
		return C.cubridge_nccl_set_library_path(cpath)
	})
}

// UniqueID joins the ranks of one multi-process communicator: rank 0 makes it
// with NewUniqueID and sends its bytes to the others by any means.
type UniqueID [C.CUBRIDGE_COMM_UNIQUE_ID_BYTES]byte

// NewUniqueID returns a new id for NewComm.
func NewUniqueID() (UniqueID, error) {
	var id C.cubridge_comm_unique_id
	err := check("comm_unique_id_create", func() C.cubridge_status {
		return C.cubridge_comm_unique_id_create(&id)
	})
	var out UniqueID
	if err == nil {
		copy(out[:], C.GoBytes(unsafe.Pointer(&id.bytes[0]), C.CUBRIDGE_COMM_UNIQUE_ID_BYTES))
	}
	return out, err
}

// Comm is one rank of an NCCL communicator, bound to one device: every
// collective on it runs on that device and refuses buffers of another one
// (ErrInvalidArgument naming both devices).
//
// Drive each Comm from one goroutine at a time (one goroutine per device is
// the natural shape); calls on one Comm from several goroutines are
// serialized, but their order across ranks is then up to the scheduler. One
// goroutine driving several Comms of one process must put the collectives of
// a step inside Group, or the first call waits for the others forever.
// Close waits for calls in progress.
//
// Without NCCL every constructor returns ErrDriver ("NCCL not available: ...");
// on the CPU backend ErrNoDevice ("NCCL not available on the CPU backend").
type Comm struct {
	res     resource
	call    sync.Mutex // one C call on the NCCL communicator at a time
	h       C.cubridge_comm
	rank    int
	size    int
	device  int
	cleanup runtime.Cleanup
}

func newComm(h C.cubridge_comm) *Comm {
	var rank, size, device C.int
	C.cubridge_comm_info(h, &rank, &size, &device)
	c := &Comm{h: h, rank: int(rank), size: int(size), device: int(device)}
	c.res.init()
	c.cleanup = runtime.AddCleanup(c, func(h C.cubridge_comm) { C.cubridge_comm_destroy(h) }, h)
	return c
}

// NewLocalComms returns one communicator per device, all in this process
// (ncclCommInitAll): comms[i] is rank i on devices[i]. With no devices it
// uses every visible device.
func NewLocalComms(devices ...int) ([]*Comm, error) {
	if len(devices) == 0 {
		devs, err := Devices()
		if err != nil {
			return nil, err
		}
		n := len(devs)
		if n == 0 {
			// Let the library say why (CPU backend, no NCCL, ...).
			n = 1
		}
		for i := 0; i < n; i++ {
			devices = append(devices, i)
		}
	}
	cdevs := make([]C.int, len(devices))
	for i, d := range devices {
		if d < 0 {
			return nil, invalid("comm_init_all", "devices[%d] = %d is negative", i, d)
		}
		for j := 0; j < i; j++ {
			if devices[j] == d {
				return nil, invalid("comm_init_all", "device %d is listed twice", d)
			}
		}
		cdevs[i] = C.int(d)
	}
	hs := make([]C.cubridge_comm, len(devices))
	if err := check("comm_init_all", func() C.cubridge_status {
		return C.cubridge_comm_init_all(C.int(len(devices)), &cdevs[0], &hs[0])
	}); err != nil {
		return nil, err
	}
	comms := make([]*Comm, len(hs))
	for i, h := range hs {
		comms[i] = newComm(h)
	}
	return comms, nil
}

// NewComm joins rank `rank` of `size` of the communicator named by id, on
// device (-1: the device current on the calling thread). It returns once
// every rank has joined.
func NewComm(id UniqueID, size, rank, device int) (*Comm, error) {
	if size < 1 {
		return nil, invalid("comm_init_rank", "size = %d must be at least 1", size)
	}
	if rank < 0 || rank >= size {
		return nil, invalid("comm_init_rank", "rank = %d must be in [0, size = %d)", rank, size)
	}
	if device < -1 {
		return nil, invalid("comm_init_rank", "device = %d is not a device (-1: the current one)", device)
	}
	var cid C.cubridge_comm_unique_id
	for i, b := range id {
		cid.bytes[i] = C.uchar(b)
	}
	var h C.cubridge_comm
	if err := check("comm_init_rank", func() C.cubridge_status {
		return C.cubridge_comm_init_rank(&cid, C.int(size), C.int(rank), C.int(device), &h)
	}); err != nil {
		return nil, err
	}
	return newComm(h), nil
}

// Rank returns c's rank (0 for a nil Comm).
func (c *Comm) Rank() int {
	if c == nil {
		return 0
	}
	return c.rank
}

// Size returns the number of ranks in c's communicator (0 for a nil Comm).
func (c *Comm) Size() int {
	if c == nil {
		return 0
	}
	return c.size
}

// Device returns the CUDA device c runs on (-1 for a nil Comm).
func (c *Comm) Device() int {
	if c == nil {
		return -1
	}
	return c.device
}

// Close frees the communicator (every rank closes its own). Closing a closed
// Comm does nothing.
func (c *Comm) Close() error {
	if c == nil {
		return nil
	}
	return c.res.close("comm_destroy", "comm", &c.cleanup, func() error {
		return check("comm_destroy", func() C.cubridge_status { return C.cubridge_comm_destroy(c.h) })
	})
}

// Abort frees the communicator without waiting for its queued collectives
// (ncclCommAbort): those still pending on the GPU end early, with undefined
// results, and their streams go on. It is the way out when a peer died or
// hangs, which would leave them, and Close, waiting forever; every other rank
// must then abort or close its own. Calls in progress on c (launches, which
// return once queued) finish first. Aborting a closed Comm does nothing.
//
//	for done, _ := s.Query(); !done; done, _ = s.Query() {
//		if err := c.AsyncError(); err != nil || time.Now().After(deadline) {
//			c.Abort()
//			break
//		}
//		time.Sleep(10 * time.Millisecond)
//	}
func (c *Comm) Abort() error {
	if c == nil {
		return nil
	}
	return c.res.close("comm_abort", "comm", &c.cleanup, func() error {
		return check("comm_abort", func() C.cubridge_status { return C.cubridge_comm_abort(c.h) })
	})
}

// AsyncError returns NCCL's asynchronous error on c (ncclCommGetAsyncError),
// nil while there is none: a network or remote failure NCCL's threads saw, as
// ErrCUDA with NCCL's message. A peer that stops calling collectives over
// NVLink or PCIe is no error there, only work that never finishes: poll the
// stream with a deadline, then Abort.
func (c *Comm) AsyncError() error {
	h, err := acquire("comm_async_error", c.arg())
	if err != nil {
		return err
	}
	defer h.release()
	return check("comm_async_error", func() C.cubridge_status { return C.cubridge_comm_async_error(c.h) })
}

func (c *Comm) arg() arg {
	if c == nil {
		return arg{name: "comm", kind: "comm"}
	}
	return arg{name: "comm", r: &c.res, kind: "comm"}
}

// Group runs f, whose collectives (on any number of Comms) are then launched
// together: the way for one goroutine to drive several Comms of one process.
// f runs on one OS thread (NCCL's group state is per thread). Buffers are
// checked before anything is queued, but a collective the C library refuses
// inside f (a foreign pointer of another device, a stream of another device)
// leaves the ones queued before it waiting for their peer: check every
// argument before the group when that can happen. NCCL queues the kernels
// when f returns, so free the collectives' buffers after Group returns: a
// Free inside f is queued before them.
func Group(f func() error) error {
	if f == nil {
		return invalid("comm_group", "f is nil")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check("comm_group_start", func() C.cubridge_status { return C.cubridge_comm_group_start() }); err != nil {
		return err
	}
	g := &group{}
	tid := syscall.Gettid()
	groups.Store(tid, g)
	ferr := f()
	groups.Delete(tid)
	gerr := check("comm_group_end", func() C.cubridge_status { return C.cubridge_comm_group_end() })
	if gerr == nil {
		gerr = g.record()
	}
	if ferr != nil {
		return ferr
	}
	return gerr
}

// groups holds the Group in progress on each OS thread (Group locks its
// goroutine to one): its collectives' uses of Buffers are recorded once
// NCCL has queued their kernels, at the group's end.
var groups sync.Map // OS thread id -> *group

type group struct {
	uses []groupUse
}

// groupUse is a collective's use of its Buffers, recorded at the group's end.
type groupUse struct {
	op         string
	s          *Stream
	send, recv arg
}

func inGroup() *group {
	if g, ok := groups.Load(syscall.Gettid()); ok {
		return g.(*group)
	}
	return nil
}

// record records the uses (a Buffer freed or a Stream closed meanwhile is
// skipped: Free inside the group is documented as queued before it).
func (g *group) record() error {
	var errs []error
	for _, u := range g.uses {
		args := []arg{u.recv}
		if u.send.r != nil && u.send.r != u.recv.r {
			args = append(args, u.send)
		}
		h, sh, err := begin(u.op, u.s, args...)
		if err != nil {
			continue
		}
		var send C.cubridge_array
		if len(args) > 1 {
			send = u.send.r.array
		}
		errs = append(errs, check(u.op, func() C.cubridge_status { return recordGroupUses(u.recv.r.array, send, sh) }))
		h.release()
	}
	return errors.Join(errs...)
}

// collective is one of the four C collectives.
type collective int

const (
	collAllReduce collective = iota
	collBroadcast
	collReduceScatter
	collAllGather
)

var collectiveOps = [...]string{"all_reduce", "broadcast", "reduce_scatter", "all_gather"}

// operands gives a collective's pointers and element count, and for Buffers
// the runtime call that orders them. It is called once the buffers are
// read-locked: Free on another goroutine changes them.
type operands func() (send, recv unsafe.Pointer, count int, c *call)

// pointers is operands for memory the library did not allocate.
func pointers(send, recv uintptr, count int) operands {
	return func() (unsafe.Pointer, unsafe.Pointer, int, *call) {
		return ptrOf(send), ptrOf(recv), count, nil
	}
}

// buffers is operands for Buffers: counted's length is the count (send may be
// nil where a rank sends nothing).
func buffers[T Number](send, recv, counted *Buffer[T]) operands {
	return func() (unsafe.Pointer, unsafe.Pointer, int, *call) {
		c := &call{op: callCollective}
		add(c, recv, true)
		var p unsafe.Pointer
		if send != nil {
			p = send.ptr
			if send != recv {
				add(c, send, false)
			} else {
				c.inPlace = true // one argument: the C side passes recv as send
			}
		}
		return p, recv.ptr, counted.n, c
	}
}

// run calls one collective; count is as the C ABI defines it for that
// collective, extra is the op or the root. On Buffers, the runtime orders it
// after their earlier work and records it (inside a Group, at its end).
func (c *Comm) run(coll collective, dt DType, get operands, extra int, s *Stream, bufs ...arg) error {
	op := collectiveOps[coll]
	args := append([]arg{c.arg()}, bufs...)
	h, sh, err := begin(op, s, args...)
	if err != nil {
		return err
	}
	defer h.release()
	send, recv, count, rt := get()
	if count < 0 {
		return invalid(op, "negative count %d", count)
	}
	c.call.Lock()
	defer c.call.Unlock()
	d, n, x := C.int(dt), C.size_t(count), C.int(extra)
	if rt != nil {
		rt.extra, rt.extra2, rt.count, rt.comm = int(coll), extra, count, c.h
		g := inGroup()
		err := check(op, func() C.cubridge_status { return rt.runRecorded(sh, g == nil) })
		if err == nil && g != nil {
			u := groupUse{op: op, s: s, recv: bufs[len(bufs)-1]}
			if len(bufs) > 1 {
				u.send = bufs[0]
			}
			g.uses = append(g.uses, u)
		}
		return err
	}
	return check(op, func() C.cubridge_status {
		switch coll {
		case collAllReduce:
			return C.cubridge_comm_all_reduce(c.h, d, send, recv, n, x, sh)
		case collBroadcast:
			return C.cubridge_comm_broadcast(c.h, d, send, recv, n, x, sh)
		case collReduceScatter:
			return C.cubridge_comm_reduce_scatter(c.h, d, send, recv, n, x, sh)
		default:
			return C.cubridge_comm_all_gather(c.h, d, send, recv, n, sh)
		}
	})
}

// AllReduce sets recv to op over every rank's send, asynchronously on s (nil:
// the default stream). send and recv have the same length and may be the
// same buffer (in place).
func AllReduce[T Number](c *Comm, send, recv *Buffer[T], op ReduceOp, s *Stream) error {
	if err := sameLen("all_reduce", send, recv, 1); err != nil {
		return err
	}
	if err := onCommDevice("all_reduce", c, send, recv); err != nil {
		return err
	}
	return c.run(collAllReduce, DTypeOf[T](), buffers(send, recv, recv), int(op), s, send.arg("send"), recv.arg("recv"))
}

// Broadcast copies root's send into every rank's recv, asynchronously on s.
// send is read on root only (other ranks may pass nil or recv).
func Broadcast[T Number](c *Comm, send, recv *Buffer[T], root int, s *Stream) error {
	if c != nil && c.rank != root || send == nil {
		if err := onCommDevice("broadcast", c, nil, recv); err != nil {
			return err
		}
		return c.run(collBroadcast, DTypeOf[T](), buffers(nil, recv, recv), root, s, recv.arg("recv"))
	}
	if err := sameLen("broadcast", send, recv, 1); err != nil {
		return err
	}
	if err := onCommDevice("broadcast", c, send, recv); err != nil {
		return err
	}
	return c.run(collBroadcast, DTypeOf[T](), buffers(send, recv, recv), root, s, send.arg("send"), recv.arg("recv"))
}

// ReduceScatter reduces send (Size() * recv.Len() elements) over the ranks
// with op and gives rank r slice r of the result in recv, asynchronously on s.
func ReduceScatter[T Number](c *Comm, send, recv *Buffer[T], op ReduceOp, s *Stream) error {
	if err := sameLen("reduce_scatter", recv, send, commSize(c)); err != nil {
		return err
	}
	if err := onCommDevice("reduce_scatter", c, send, recv); err != nil {
		return err
	}
	return c.run(collReduceScatter, DTypeOf[T](), buffers(send, recv, recv), int(op), s, send.arg("send"), recv.arg("recv"))
}

// AllGather concatenates every rank's send, in rank order, into recv
// (Size() * send.Len() elements), asynchronously on s.
func AllGather[T Number](c *Comm, send, recv *Buffer[T], s *Stream) error {
	if err := sameLen("all_gather", send, recv, commSize(c)); err != nil {
		return err
	}
	if err := onCommDevice("all_gather", c, send, recv); err != nil {
		return err
	}
	return c.run(collAllGather, DTypeOf[T](), buffers(send, recv, send), 0, s, send.arg("send"), recv.arg("recv"))
}

// AllReducePtr is AllReduce on device memory the library did not allocate
// (another library's CUDA pointers): count elements of dt at send and recv.
func (c *Comm) AllReducePtr(dt DType, send, recv uintptr, count int, op ReduceOp, s *Stream) error {
	return c.run(collAllReduce, dt, pointers(send, recv, count), int(op), s)
}

// BroadcastPtr is Broadcast on foreign device memory (count elements of dt).
func (c *Comm) BroadcastPtr(dt DType, send, recv uintptr, count, root int, s *Stream) error {
	return c.run(collBroadcast, dt, pointers(send, recv, count), root, s)
}

// ReduceScatterPtr is ReduceScatter on foreign device memory: send holds
// Size() * recvCount elements of dt.
func (c *Comm) ReduceScatterPtr(dt DType, send, recv uintptr, recvCount int, op ReduceOp, s *Stream) error {
	return c.run(collReduceScatter, dt, pointers(send, recv, recvCount), int(op), s)
}

// AllGatherPtr is AllGather on foreign device memory: recv holds Size() *
// sendCount elements of dt.
func (c *Comm) AllGatherPtr(dt DType, send, recv uintptr, sendCount int, s *Stream) error {
	return c.run(collAllGather, dt, pointers(send, recv, sendCount), 0, s)
}

// ptrOf turns a foreign device address into the pointer the C ABI takes. The
// memory is not Go memory, so the garbage collector never looks at it.
func ptrOf(p uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

func commSize(c *Comm) int {
	if c == nil {
		return 1
	}
	return c.size
}

// sameLen checks big.Len() == factor * small.Len() for two non-nil buffers
// (nil buffers are reported by begin with their names).
func sameLen[T Number](op string, small, big *Buffer[T], factor int) error {
	if small == nil || big == nil {
		return nil
	}
	if big.Len() != factor*small.Len() {
		if factor == 1 {
			return invalid(op, "send and recv differ in length (%d and %d)", small.Len(), big.Len())
		}
		return invalid(op, "the larger buffer has %d elements, want %d ranks × %d", big.Len(), factor, small.Len())
	}
	return nil
}

// onCommDevice refuses device buffers of another device than c's before any
// C call: inside a Group, a collective refused after others were queued
// would leave those waiting for it on the GPU. (The C library checks again,
// foreign pointers included.)
func onCommDevice[T Number](op string, c *Comm, send, recv *Buffer[T]) error {
	if c == nil {
		return nil
	}
	for _, x := range []struct {
		name string
		b    *Buffer[T]
	}{{"send", send}, {"recv", recv}} {
		if x.b != nil && x.b.kind == DeviceMemory && x.b.device != c.device {
			return invalid(op, "argument '%s' is on device %d, the communicator (rank %d) is on device %d",
				x.name, x.b.device, c.rank, c.device)
		}
	}
	return nil
}
