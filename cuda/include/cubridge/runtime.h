/*
 * cubridge runtime ABI (added in 0.2): what every front end needs around a
 * call, in the library so that each front end (the CPython extension, the Go
 * package, a binding of your own kernels) gets the same behaviour:
 *
 *  - arrays: memory of the library's pools that knows when it is ready (the
 *    streams that wrote and read it, through events) and is reused only once
 *    every use is done (cubridge_array_*);
 *  - views: any producer's array (DLPack, the CUDA array interface, the
 *    buffer protocol, torch, CuPy, Go slices) as pointer, dtype, shape,
 *    strides, device and readiness, checked by one function
 *    (cubridge_view_check);
 *  - calls: the stream a call runs on, and the policy "wait for the
 *    producers, then run, then let the producers wait for the call"
 *    (cubridge_call_*);
 *  - the device guard (cubridge_device_enter/leave) and stream ordering
 *    (cubridge_stream_order).
 *
 * The rules of cubridge.h hold here too: plain C, every function returns a
 * cubridge_status and leaves a message naming the argument on failure. Structs
 * the caller fills start with struct_size = sizeof(the struct): later versions
 * only append fields. Nothing here keeps a Python, Go or other foreign object.
 *
 * A call, step by step (docs/runtime.md has the whole story):
 *
 *   cubridge_call c = {sizeof c};
 *   cubridge_call_begin(&c, stream, CUBRIDGE_CALL_FOLLOW_PRODUCER);
 *   cubridge_call_add(&c, &x_view, CUBRIDGE_ACCESS_READ);   // checked, ordered
 *   cubridge_call_add(&c, &out_view, CUBRIDGE_ACCESS_WRITE);
 *   status = my_launch(..., c.handle);                      // on c.device
 *   status = cubridge_call_end(&c, status);                 // uses recorded
 */
#ifndef CUBRIDGE_RUNTIME_H_
#define CUBRIDGE_RUNTIME_H_

#include "cubridge/cubridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most dimensions a view may have. */
#define CUBRIDGE_MAX_NDIM 64

/* How a call uses an array: reads it, or writes it (a write may read too). */
typedef enum cubridge_access {
  CUBRIDGE_ACCESS_READ = 1,
  CUBRIDGE_ACCESS_WRITE = 2
} cubridge_access;

/* ---- arrays: library memory that knows when it is ready ------------------
 * An array is a block from the library's memory (cubridge_malloc_async's
 * pools) plus the state of its uses: the stream of its last write, an event
 * that completes after every use recorded so far, and whether a use on the
 * default stream or an export came since. Every front end's arrays are these
 * (Python's cubridge.Array, Go's Buffer), so their memory is reused the same
 * way everywhere: never before the work that uses it is done.
 *
 * Around work on a stream: cubridge_array_acquire before (the stream waits,
 * on the device, for what the work must come after), cubridge_array_release
 * after (the use is recorded). The host waits with cubridge_array_sync. On the
 * CPU backend every op finishes before it returns: acquire, release and sync
 * do nothing there. An array is safe to use from several threads. */
typedef struct cubridge_array_s* cubridge_array;

/* A new array of `bytes` of `kind` (DEVICE, MANAGED or PINNED) on `device`
 * (-1: the device of `stream`, else the calling thread's), allocated in order
 * on `stream` (NULL: the default stream of that device): the allocation
 * counts as a write there, so other streams are ordered after it by
 * acquire. DEVICE blocks come from cubridge_malloc_async (block cache, pool);
 * on another library's stream first from the array cache: blocks of arrays
 * whose last uses were on such streams, kept behind their event (at most 8
 * of at most 32 MiB, counted as cached_bytes), which `stream` then waits for.
 * On out-of-memory the caches are emptied and the allocation retried. A
 * stream that records a graph is refused, as by cubridge_malloc_async.
 * bytes == 0 gives an array with no memory (data NULL). */
CUBRIDGE_API cubridge_status cubridge_array_create(int kind, size_t bytes, int device,
                                                   cubridge_stream stream, cubridge_array* array);

/* Ends the array; its memory is reused only after every use recorded so
 * far, and nothing waits on the host: the block goes to the block cache of
 * the library's stream it was last used on (created streams are ordered with
 * the legacy default stream by CUDA), or into the array cache behind its
 * event when the event covers every use (the last ones on another library's
 * stream, none since on the default stream, never exported), or back to the
 * pool on the default stream of its device after that stream waited for the
 * event. While a stream of this library records a graph, the memory waits
 * for the recording's end (a free then would end it). NULL is a no-op. */
CUBRIDGE_API cubridge_status cubridge_array_destroy(cubridge_array array);

typedef struct cubridge_array_info {
  size_t struct_size; /* caller sets sizeof(cubridge_array_info) */
  void* data;         /* NULL when bytes == 0 */
  size_t bytes;
  int kind;   /* cubridge_memory */
  int device; /* the device it was allocated for (0 on the CPU backend) */
} cubridge_array_info;
CUBRIDGE_API cubridge_status cubridge_array_get_info(cubridge_array array,
                                                     cubridge_array_info* info);

/* Before work queued on `stream` (NULL: the default stream of the array's
 * device) that reads the array (ACCESS_READ) or writes it (ACCESS_WRITE):
 * `stream` waits, on the device, for the array's last write on another
 * stream; for a write also for every other use since, reads included (a
 * write must not overtake them). Nothing is ordered while `stream` records a
 * graph: order its launches instead. */
CUBRIDGE_API cubridge_status cubridge_array_acquire(cubridge_array array, cubridge_stream stream,
                                                    int access);
/* After work was queued on `stream` that read or wrote the array: the use is
 * recorded (an event on another library's stream; nothing yet on the default
 * stream or a stream of this library's, which are ordered with the free and
 * get an event only when another stream needs one). Should the record fail,
 * `stream` is synchronised instead: the work itself was queued. */
CUBRIDGE_API cubridge_status cubridge_array_release(cubridge_array array, cubridge_stream stream,
                                                    int access);
/* The host is about to read (ACCESS_READ) or write (ACCESS_WRITE) the
 * array's memory (pinned, managed, or any on the CPU backend): waits for its
 * last write, and for a write also for every use since. Blocks: a binding
 * that holds a lock (Python's GIL) releases it around this call. */
CUBRIDGE_API cubridge_status cubridge_array_sync(cubridge_array array, int access);
/* The array's address goes to code whose later uses the runtime does not
 * see (DLPack, the CUDA array interface, a raw pointer): from now on the
 * block is never reused behind its event alone. The default stream of its
 * device is made to wait for a last write on another stream, and *pending
 * (may be NULL) says whether a write may still run there: an exporter that
 * names a stream then names the default one (the CUDA array interface's 1). */
CUBRIDGE_API cubridge_status cubridge_array_export(cubridge_array array, int* pending);

/* ---- views: any producer's array, checked by one function ---------------
 * A front end fills a view from whatever protocol an argument came through;
 * cubridge_view_check (or cubridge_call_add, which calls it) applies the
 * same rules to all of them. */
#define CUBRIDGE_VIEW_READONLY 1u   /* the producer forbids writes */
#define CUBRIDGE_VIEW_ASK_MEMORY 2u /* the producer does not say which memory: ask CUDA */
/* A stride that is not a whole number of elements (in cubridge_view.strides). */
#define CUBRIDGE_STRIDE_NOT_WHOLE INT64_MIN

typedef struct cubridge_view {
  size_t struct_size;     /* caller sets sizeof(cubridge_view) */
  const char* name;       /* the argument's name, for messages ("x", "out") */
  void* data;             /* the first element */
  int dtype;              /* cubridge_dtype; -1: the producer's type has none ... */
  const char* dtype_desc; /* ... and this says what it was ("torch.uint8"); may be NULL */
  int ndim;
  const int64_t* shape;   /* ndim dimensions */
  const int64_t* strides; /* ndim strides in elements; NULL: C-contiguous */
  int memory;             /* cubridge_memory, as the producer says */
  int device;             /* CUDA device of device or managed memory; -1: host or unknown */
  unsigned flags;         /* CUBRIDGE_VIEW_* */
  const char* source;     /* what the producer is, for messages ("a CuPy array"); may be NULL */
  /* Readiness: the stream (cudaStream_t) the producer wrote it on and that
   * work on it must come after (torch's current stream, a CUDA array
   * interface's `stream`; 1 and 2: the legacy and per-thread default streams
   * of the view's device), 0 when it is ready or the producer ordered it for
   * the call itself (DLPack's stream argument) ... */
  uintptr_t producer;
  /* ... or the runtime array it views, whose own state says (NULL: none). */
  cubridge_array array;
  /* Set by cubridge_view_check: */
  size_t n;      /* elements */
  size_t nbytes; /* bytes */
} cubridge_view;

/* Checks `view` for a call that reads or writes it (`access`): ndim (at most
 * CUBRIDGE_MAX_NDIM), no negative dimension, element and byte counts that
 * fit, a cubridge dtype, C-contiguity, write access for ACCESS_WRITE; then
 * where it lives: with CUBRIDGE_VIEW_ASK_MEMORY the runtime asks CUDA (a
 * CUDA array interface says only "CUDA memory"; it may be managed or pinned),
 * and device or managed memory of a producer (not a runtime array) is refused
 * on the CPU backend. Sets n and nbytes. INVALID_ARGUMENT or
 * UNSUPPORTED_DTYPE with a message naming view->name. */
CUBRIDGE_API cubridge_status cubridge_view_check(cubridge_view* view, int access);

/* ---- calls: which stream, and who waits for whom --------------------------
 * A call gathers the views of one piece of work (an op of the library or a
 * kernel of yours), orders the stream it runs on after their producers, and
 * after the work records its uses and orders the producers' streams after
 * it, so their next kernels and their caching allocators see it done. The
 * struct lives on the caller's stack; the fields below `count` are the
 * runtime's. */
#define CUBRIDGE_CALL_MAX_ARGS 8
/* No stream was given: run on the stream that produced the first argument
 * (torch's current stream for a torch tensor: where torch's own ops run),
 * else on `stream` as given to begin (the default stream). */
#define CUBRIDGE_CALL_FOLLOW_PRODUCER 1
typedef struct cubridge_call {
  size_t struct_size;     /* caller sets sizeof(cubridge_call) */
  cubridge_stream stream; /* the stream the work runs on (NULL: the default stream) */
  uintptr_t handle;       /* its cudaStream_t (0: the default stream) */
  int capturing;          /* 1: it records a graph; nothing is ordered now */
  int device;             /* the device of every argument when all are device or managed
                             memory of one device (cubridge_assume_device may be given it),
                             else -1 */
  int count;              /* arguments added */
  /* The runtime's: */
  int flags;
  cubridge_stream followed; /* the producer's stream, when the call follows it */
  struct {
    cubridge_view* view;
    int access;
    uintptr_t producer; /* the stream to hand back to, 0: none */
    int home;           /* the device of that stream when it is a default one */
  } args[CUBRIDGE_CALL_MAX_ARGS];
} cubridge_call;

/* Starts a call on `stream` (NULL: the default stream; the caller keeps it
 * alive until cubridge_call_end) and asks whether that stream records a
 * graph. flags: CUBRIDGE_CALL_FOLLOW_PRODUCER or 0. */
CUBRIDGE_API cubridge_status cubridge_call_begin(cubridge_call* call, cubridge_stream stream,
                                                 int flags);
/* Adds an argument: checks it (cubridge_view_check) and, unless the call's
 * stream records a graph, orders the call's stream after it: after a runtime
 * array's last write (ACCESS_WRITE: after every use), or after the work
 * queued so far on the producer's stream (one event per producer stream,
 * however many arguments it wrote; a producer stream that records a graph
 * is refused with a message saying to pass it as the stream). The view must
 * stay valid until cubridge_call_end. */
CUBRIDGE_API cubridge_status cubridge_call_add(cubridge_call* call, cubridge_view* view,
                                               int access);
/* Ends the call, whose work returned `status`: when it is CUBRIDGE_OK (and the
 * stream does not record a graph) records the use of every runtime array on
 * the call's stream and orders every producer's stream after the call's (if
 * that fails, the call's stream is synchronised instead). Returns `status`,
 * keeping its message, or the failure of the ordering. */
CUBRIDGE_API cubridge_status cubridge_call_end(cubridge_call* call, cubridge_status status);

/* `consumer` waits, on the device, for the work queued on `producer` so far
 * (an event; no host wait). Nothing when they are the same stream or on the
 * CPU backend. A `producer` that records a graph cannot be waited for (that
 * would end its recording): INVALID_ARGUMENT. */
CUBRIDGE_API cubridge_status cubridge_stream_order(cubridge_stream producer,
                                                   cubridge_stream consumer);

/* ---- the device guard --------------------------------------------------- */
/* Makes `device` current for the calling thread (-1: leaves it) and puts the
 * device that was current in *previous; cubridge_device_leave(*previous)
 * restores it. Work of your own on a view's device goes between the two. The
 * CPU backend has device 0 only; nothing changes there. */
CUBRIDGE_API cubridge_status cubridge_device_enter(int device, int* previous);
CUBRIDGE_API cubridge_status cubridge_device_leave(int previous);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CUBRIDGE_RUNTIME_H_ */
