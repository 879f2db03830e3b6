package cubridge

/*
#include <string.h>
#include "cubridge/comm.h"
#include "cubridge/runtime.h"

// The C side of a Buffer op: one runtime call (cubridge/runtime.h) around the
// library's op, in one cgo call. The runtime orders the op after the work
// that last wrote its buffers (and, for a written buffer, after every use)
// and records the op's uses, so that a buffer's memory is reused only after
// them, whatever streams they ran on: the ordering Python's Arrays get.

// One argument: a Buffer's runtime array, or host memory (array NULL, data
// passed apart: a Go pointer may not sit in memory C is given).
typedef struct cbg_arg {
	cubridge_array array;
	void* data;
	int kind;   // cubridge_memory
	int device; // of device and managed memory
	int access; // CUBRIDGE_ACCESS_*
	int dtype;
	size_t n;
} cbg_arg;

enum {
	CBG_ADD, CBG_SUB, CBG_MUL, CBG_DIV, CBG_AXPY, CBG_SCALE, CBG_FILL, CBG_CONVERT,
	CBG_COPY, CBG_PREFETCH, CBG_SUM, CBG_DOT, CBG_MIN, CBG_MAX, CBG_COLLECTIVE
};

// What the op is: args[0] is the one written (reductions: args[0] and
// args[1] are read), then its inputs.
typedef struct cbg_op {
	int op;
	double scalar;       // div's zero value, alpha, the fill value
	int extra;           // prefetch's device; a collective's kind (then its op or root: extra2)
	int extra2;
	int in_place;        // a collective whose send is its recv (one argument, used once)
	size_t count;        // a collective's count
	cubridge_comm comm;
	void* result;        // a reduction's result (Go memory: passed apart)
} cbg_op;

static cubridge_status cbg_launch(const cbg_op* o, const cbg_arg* a, void* result, cubridge_stream s) {
	int dt = a[0].dtype;
	switch (o->op) {
	case CBG_ADD: return cubridge_add(dt, a[1].data, a[2].data, a[0].data, a[0].n, s);
	case CBG_SUB: return cubridge_sub(dt, a[1].data, a[2].data, a[0].data, a[0].n, s);
	case CBG_MUL: return cubridge_mul(dt, a[1].data, a[2].data, a[0].data, a[0].n, s);
	case CBG_DIV: return cubridge_div(dt, a[1].data, a[2].data, a[0].data, a[0].n, o->scalar, s);
	case CBG_AXPY: return cubridge_axpy(dt, o->scalar, a[1].data, a[0].data, a[0].n, s);
	case CBG_SCALE: return cubridge_scale(dt, o->scalar, a[0].data, a[0].n, s);
	case CBG_FILL: return cubridge_fill(dt, o->scalar, a[0].data, a[0].n, s);
	case CBG_CONVERT: return cubridge_convert(a[1].dtype, a[1].data, dt, a[0].data, a[0].n, s);
	case CBG_COPY:
		return cubridge_memcpy(a[0].data, a[1].data, a[0].n * cubridge_dtype_size(dt), s);
	case CBG_PREFETCH:
		return cubridge_prefetch(a[0].data, a[0].n * cubridge_dtype_size(dt), o->extra, s);
	case CBG_SUM: return cubridge_sum(dt, a[0].data, a[0].n, result, s);
	case CBG_DOT: return cubridge_dot(dt, a[0].data, a[1].data, a[0].n, result, s);
	case CBG_MIN: return cubridge_min(dt, a[0].data, a[0].n, result, s);
	case CBG_MAX: return cubridge_max(dt, a[0].data, a[0].n, result, s);
	case CBG_COLLECTIVE: {
		// recv is args[0], send args[1]: recv itself in place, NULL for a
		// broadcast's receivers.
		const void* send = o->in_place ? a[0].data : a[1].data;
		switch (o->extra) {
		case CUBRIDGE_ALL_REDUCE:
			return cubridge_comm_all_reduce(o->comm, dt, send, a[0].data, o->count, o->extra2, s);
		case CUBRIDGE_BROADCAST:
			return cubridge_comm_broadcast(o->comm, dt, send, a[0].data, o->count, o->extra2, s);
		case CUBRIDGE_REDUCE_SCATTER:
			return cubridge_comm_reduce_scatter(o->comm, dt, send, a[0].data, o->count, o->extra2, s);
		default:
			return cubridge_comm_all_gather(o->comm, dt, send, a[0].data, o->count, s);
		}
	}
	}
	return CUBRIDGE_ERR_INTERNAL;
}

// Runs the op in a runtime call on `s`. `host` is the data of the argument
// that is host memory (CopyFrom, CopyTo), if any. With `release` 0 the uses
// are not recorded (a collective inside a group: its kernel is queued at the
// group's end, when cbg_release records them).
static cubridge_status cbg_call(const cbg_op* o, const cbg_arg* in, int count, void* host,
                                void* result, int release, cubridge_stream s) {
	cubridge_call c;
	cubridge_view v[3];
	int64_t shape[3];
	cbg_arg args[3]; // a copy: the Go pointer `host` is not written into Go memory
	memset(args, 0, sizeof args);
	memcpy(args, in, sizeof(cbg_arg) * (size_t)count);
	c.struct_size = sizeof c;
	cubridge_status st = cubridge_call_begin(&c, s, 0);
	for (int i = 0; st == CUBRIDGE_OK && i < count; i++) {
		if (args[i].array == NULL && args[i].data == NULL) args[i].data = host;
		memset(&v[i], 0, sizeof v[i]);
		v[i].struct_size = sizeof v[i];
		v[i].name = i == 0 ? "dst" : "src";
		v[i].data = args[i].data;
		v[i].dtype = args[i].dtype;
		v[i].ndim = 1;
		shape[i] = (int64_t)args[i].n;
		v[i].shape = &shape[i];
		v[i].memory = args[i].kind;
		v[i].device = args[i].kind == CUBRIDGE_MEMORY_HOST ? -1 : args[i].device;
		v[i].array = args[i].array;
		st = cubridge_call_add(&c, &v[i], args[i].access);
	}
	// A hint that the op does not take (a copy, a prefetch, a collective) ends
	// with the call (cubridge_call_end).
	if (st == CUBRIDGE_OK && c.device >= 0) st = cubridge_assume_device(c.device);
	if (st == CUBRIDGE_OK) st = cbg_launch(o, args, result, c.stream);
	if (!release && st == CUBRIDGE_OK) c.count = 0; // recorded later (cbg_release)
	return cubridge_call_end(&c, st);
}

// Records the uses of a collective queued inside a group, once the group
// ended and NCCL queued its kernel.
static cubridge_status cbg_release(cubridge_array recv, cubridge_array send, cubridge_stream s) {
	cubridge_status st = cubridge_array_release(recv, s, CUBRIDGE_ACCESS_WRITE);
	if (st == CUBRIDGE_OK && send != NULL && send != recv)
		st = cubridge_array_release(send, s, CUBRIDGE_ACCESS_READ);
	return st;
}

// A graph's launch on `s`, ordered like an op that writes every one of its
// `count` arrays: after their earlier uses, and before their next ones.
static cubridge_status cbg_graph_launch(cubridge_graph g, cubridge_array* arrays, int count,
                                        cubridge_stream s) {
	cubridge_status st = CUBRIDGE_OK;
	for (int i = 0; st == CUBRIDGE_OK && i < count; i++)
		st = cubridge_array_acquire(arrays[i], s, CUBRIDGE_ACCESS_WRITE);
	if (st == CUBRIDGE_OK) st = cubridge_graph_launch(g, s);
	for (int i = 0; st == CUBRIDGE_OK && i < count; i++)
		st = cubridge_array_release(arrays[i], s, CUBRIDGE_ACCESS_WRITE);
	return st;
}

// A new runtime array and its data, in one cgo call.
static cubridge_status cbg_create(int kind, size_t bytes, int device, cubridge_stream s,
                                  cubridge_array* array, void** data) {
	cubridge_status st = cubridge_array_create(kind, bytes, device, s, array);
	if (st != CUBRIDGE_OK) return st;
	cubridge_array_info info;
	info.struct_size = sizeof info;
	st = cubridge_array_get_info(*array, &info);
	*data = info.data;
	return st;
}
*/
import "C"

import "unsafe"

// callOp is what a call runs (the C side's CBG_*).
type callOp int

const (
	callAdd        callOp = C.CBG_ADD
	callSub        callOp = C.CBG_SUB
	callMul        callOp = C.CBG_MUL
	callDiv        callOp = C.CBG_DIV
	callAxpy       callOp = C.CBG_AXPY
	callScale      callOp = C.CBG_SCALE
	callFill       callOp = C.CBG_FILL
	callConvert    callOp = C.CBG_CONVERT
	callCopy       callOp = C.CBG_COPY
	callPrefetch   callOp = C.CBG_PREFETCH
	callSum        callOp = C.CBG_SUM
	callDot        callOp = C.CBG_DOT
	callMin        callOp = C.CBG_MIN
	callMax        callOp = C.CBG_MAX
	callCollective callOp = C.CBG_COLLECTIVE
)

// call is one op on Buffers as the runtime orders it: args[0] is what it
// writes (a reduction reads args[0] and args[1]), then its inputs.
type call struct {
	op      callOp
	scalar  C.double // div's zero value, alpha, the fill value
	extra   int      // prefetch's device; a collective's kind
	extra2  int      // a collective's op or root
	inPlace bool     // a collective whose send is its recv
	count   int      // a collective's count
	comm    C.cubridge_comm
	args    [3]C.cbg_arg
	n       int
	host    unsafe.Pointer // the data of the argument in host memory (a Go slice), if any
	result  unsafe.Pointer // a reduction's result (Go memory)
}

// buffer adds memory as the next argument, read or written.
func (c *call) buffer(arr C.cubridge_array, ptr unsafe.Pointer, kind MemoryKind, device int, dt DType, n int, write bool) {
	a := &c.args[c.n]
	c.n++
	a.array, a.data, a.kind, a.device, a.dtype, a.n = arr, ptr, C.int(kind), C.int(device), C.int(dt), C.size_t(n)
	a.access = C.CUBRIDGE_ACCESS_READ
	if write {
		a.access = C.CUBRIDGE_ACCESS_WRITE
	}
}

// slice adds host memory (a Go slice's data) as the next argument.
func (c *call) slice(p unsafe.Pointer, dt DType, n int, write bool) {
	c.buffer(nil, nil, HostMemory, -1, dt, n, write)
	c.host = p
}

// run runs the op on stream sh (held by the caller) and returns its status.
func (c *call) run(sh C.cubridge_stream) C.cubridge_status { return c.runRecorded(sh, true) }

// runRecorded is run; with record false the runtime does not record the
// uses yet (a collective inside a Group: recorded at the group's end).
func (c *call) runRecorded(sh C.cubridge_stream, record bool) C.cubridge_status {
	op := C.cbg_op{op: C.int(c.op), scalar: c.scalar, extra: C.int(c.extra), extra2: C.int(c.extra2),
		count: C.size_t(c.count), comm: c.comm}
	if c.inPlace {
		op.in_place = 1
	}
	rel := C.int(0)
	if record {
		rel = 1
	}
	return C.cbg_call(&op, &c.args[0], C.int(c.n), c.host, c.result, rel, sh)
}

// add adds b as the next argument of c.
func add[T Number](c *call, b *Buffer[T], write bool) {
	c.buffer(b.arr, b.ptr, b.kind, b.device, DTypeOf[T](), b.n, write)
}

// createArray makes a runtime array of bytes of kind on device, in order on sh.
func createArray(kind MemoryKind, bytes int, device int, sh C.cubridge_stream, arr *C.cubridge_array, p *unsafe.Pointer) C.cubridge_status {
	return C.cbg_create(C.int(kind), C.size_t(bytes), C.int(device), sh, arr, p)
}

// recordGroupUses records the uses of a collective queued inside a Group.
func recordGroupUses(recv, send C.cubridge_array, sh C.cubridge_stream) C.cubridge_status {
	return C.cbg_release(recv, send, sh)
}

// launchGraph launches g on sh, ordered with the uses of the buffers it keeps.
func launchGraph(g C.cubridge_graph, arrays []C.cubridge_array, sh C.cubridge_stream) C.cubridge_status {
	var p *C.cubridge_array
	if len(arrays) > 0 {
		p = &arrays[0]
	}
	return C.cbg_graph_launch(g, p, C.int(len(arrays)), sh)
}
