/*
 * cubridge C ABI: the one contract between the kernels and every front end
 * (Go through cgo, CPython through the extension, ctypes, C++ tests).
 *
 * Rules that hold for every function below:
 *  - Plain C types only; no C++ or CUDA type crosses this boundary.
 *  - Every function returns a cubridge_status. CUBRIDGE_OK is 0.
 *  - On failure, cubridge_last_error() returns a message for the calling thread
 *    that names the offending argument. The message stays valid until the next
 *    cubridge call on that thread.
 *  - Pointers may be host memory (pageable or pinned), device memory or managed
 *    memory; each op finds out which with the CUDA runtime and picks its path:
 *    all on the device -> a kernel launch on `stream`; all in host memory ->
 *    the pipelined host path (GPU backend) or CPU threads (CPU backend);
 *    a mix that cannot work -> CUBRIDGE_ERR_INVALID_ARGUMENT.
 *  - `stream` may be NULL for the default stream. Device-path ops are
 *    asynchronous on their stream; host-path ops and reductions return only
 *    when their results are in the caller's memory.
 *  - n == 0 is valid and does nothing; pointers may then be NULL.
 *  - After a recoverable error (anything but CUBRIDGE_ERR_CUDA_STICKY) the
 *    library keeps working.
 *  - Pinned host memory counts as device-accessible: an op whose pointers are
 *    all device, managed or pinned runs as a kernel (async on `stream`).
 *  - Devices (GPU backend): an op runs on the device of its arrays (the
 *    allocation table for the library's own memory, cudaPointerGetAttributes
 *    for foreign memory, or cubridge_assume_device), under a scoped guard
 *    that restores the caller's current device; scratch, staging and
 *    occupancy are cached per device. Device arrays of two devices in one
 *    call, or a `stream` of another device than the arrays, are
 *    CUBRIDGE_ERR_INVALID_ARGUMENT naming both devices. Managed and pinned
 *    memory do not pick a device: an op of only managed/pinned arrays runs on
 *    the stream's device, else the caller's. The CPU backend has one device,
 *    0 (the host); any other device index is CUBRIDGE_ERR_INVALID_ARGUMENT.
 *  - Host-path details: elementwise ops whose host arrays total at most 16 MiB
 *    run on CPU threads even on the GPU backend (a GPU round trip costs more);
 *    larger ones are pipelined in 4 MiB chunks through cached pinned staging
 *    buffers on three internal streams. Reductions of host arrays always run
 *    on CPU threads (staging them would cost as much as the CPU pass itself).
 *    fill of host arrays always runs on CPU threads. `stream` runs none of
 *    this work; when pinned memory is among the arrays, the op first waits
 *    for the work queued on `stream`, which may still use it.
 */
#ifndef CUBRIDGE_CUBRIDGE_H_
#define CUBRIDGE_CUBRIDGE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUBRIDGE_VERSION_MAJOR 0
#define CUBRIDGE_VERSION_MINOR 2
#define CUBRIDGE_VERSION_PATCH 0
/* MAJOR*10000 + MINOR*100 + PATCH, as returned by cubridge_version(). */
#define CUBRIDGE_VERSION \
  (CUBRIDGE_VERSION_MAJOR * 10000 + CUBRIDGE_VERSION_MINOR * 100 + CUBRIDGE_VERSION_PATCH)

#if defined(_WIN32)
#define CUBRIDGE_API
#else
#define CUBRIDGE_API __attribute__((visibility("default")))
#endif

typedef enum cubridge_status {
  CUBRIDGE_OK = 0,
  CUBRIDGE_ERR_INVALID_ARGUMENT = 1,  /* null pointer, bad length, overlap, ... */
  CUBRIDGE_ERR_UNSUPPORTED_DTYPE = 2, /* dtype unknown, or not valid for the op */
  CUBRIDGE_ERR_OUT_OF_MEMORY = 3,     /* host, pinned, device or managed */
  CUBRIDGE_ERR_NO_DEVICE = 4,         /* GPU backend asked for, none present */
  CUBRIDGE_ERR_DRIVER = 5,            /* driver missing or too old */
  CUBRIDGE_ERR_LAUNCH_FAILED = 6,     /* a kernel failed to launch or run */
  CUBRIDGE_ERR_CUDA = 7,              /* any other CUDA runtime error */
  CUBRIDGE_ERR_CUDA_STICKY = 8,       /* context is corrupt: GPU work impossible */
  CUBRIDGE_ERR_INTERNAL = 9           /* a bug in cubridge */
} cubridge_status;

/* One table of element types; front ends use these numbers too. */
typedef enum cubridge_dtype {
  CUBRIDGE_FLOAT32 = 0,
  CUBRIDGE_FLOAT64 = 1,
  CUBRIDGE_INT32 = 2,
  CUBRIDGE_INT64 = 3,
  CUBRIDGE_FLOAT16 = 4,
  CUBRIDGE_BFLOAT16 = 5
} cubridge_dtype;

typedef enum cubridge_backend {
  CUBRIDGE_BACKEND_CPU = 0,
  CUBRIDGE_BACKEND_CUDA = 1
} cubridge_backend;

/* Where memory lives. On the CPU backend every kind is ordinary host memory. */
typedef enum cubridge_memory {
  CUBRIDGE_MEMORY_HOST = 0,    /* pageable host memory (not ours) */
  CUBRIDGE_MEMORY_DEVICE = 1,  /* cudaMalloc */
  CUBRIDGE_MEMORY_MANAGED = 2, /* cudaMallocManaged: both sides may touch it */
  CUBRIDGE_MEMORY_PINNED = 3   /* cudaMallocHost: page-locked host memory */
} cubridge_memory;

typedef struct cubridge_stream_s* cubridge_stream; /* NULL: default stream */
typedef struct cubridge_event_s* cubridge_event;

/* ---- library state ---------------------------------------------------- */

/* CUBRIDGE_VERSION of the compiled library (may differ from the header). */
CUBRIDGE_API int cubridge_version(void);

/* Message for the last failure on this thread; "" after success. Never NULL. */
CUBRIDGE_API const char* cubridge_last_error(void);

/* Stable upper-case name of a status, e.g. "OUT_OF_MEMORY"; "UNKNOWN" else. */
CUBRIDGE_API const char* cubridge_status_name(int status);

/* Name of a dtype ("float32", ...) or NULL if unknown; its size in bytes or 0. */
CUBRIDGE_API const char* cubridge_dtype_name(int dtype);
CUBRIDGE_API size_t cubridge_dtype_size(int dtype);

/* ---- tables (one source of truth; front ends read these at init) ---- */
CUBRIDGE_API int cubridge_dtype_count(void);  /* dtypes are 0 .. count-1 */
CUBRIDGE_API int cubridge_status_count(void); /* statuses are 0 .. count-1 */
/* "host", "device", "managed", "pinned"; NULL if unknown. */
CUBRIDGE_API const char* cubridge_memory_name(int kind);
/* CUDA runtime version the library was built with, MAJOR*1000 + MINOR*10
 * (13000 for CUDA 13.0, 12040 for 12.4: --@cubridge//toolchains/cuda:version),
 * 0 on a build without CUDA (mode=none). */
CUBRIDGE_API int cubridge_cuda_version(void);

/* CUDA version the installed driver supports, in the same form (13000 for a
 * 580 driver), 0 without a driver or on a build without CUDA. The driver must
 * be at least cubridge_cuda_version()'s major (CUDA 12 runs on 12.x drivers
 * through minor-version compatibility). Creates no context. */
CUBRIDGE_API int cubridge_driver_version(void);

/* The backend in use. Chosen once, at first use: the environment variable
 * CUBRIDGE_BACKEND = "cpu" | "cuda" | "auto" (default auto: CUDA when a device
 * is visible, else CPU). "cuda" with no device makes every op fail with
 * CUBRIDGE_ERR_NO_DEVICE or CUBRIDGE_ERR_DRIVER. */
CUBRIDGE_API cubridge_status cubridge_get_backend(int* backend);

/* Number of CUDA devices visible (0 on the CPU backend or without a driver). */
CUBRIDGE_API cubridge_status cubridge_device_count(int* count);

/* NUL-terminated name of device `device` into buf[len]; truncates to fit. */
CUBRIDGE_API cubridge_status cubridge_device_name(int device, char* buf, size_t len);

/* Free and total memory of the current device, bytes. */
CUBRIDGE_API cubridge_status cubridge_mem_info(size_t* free_bytes, size_t* total_bytes);

/* ---- devices ---- */
/* Device of the calling thread (cudaGetDevice); 0 on the CPU backend (its one
 * host device). */
CUBRIDGE_API cubridge_status cubridge_get_device(int* device);
/* Checks `device`: CUBRIDGE_ERR_INVALID_ARGUMENT naming it and the count when
 * out of range; on the CPU backend only 0 exists. */
CUBRIDGE_API cubridge_status cubridge_check_device(int device);
/* Free/total memory of `device` (cubridge_mem_info keeps meaning the current
 * device). On the CPU backend device 0 is the host's physical memory. */
CUBRIDGE_API cubridge_status cubridge_device_mem_info(int device, size_t* free_bytes,
                                                      size_t* total_bytes);

/* ---- operand location for front ends that already know it ---- */
/* The next op (elementwise op or reduction) called on this thread may take
 * every pointer it gets as device-accessible memory of `device` (the producer
 * said so: DLPack kDLCUDA/kDLCUDAManaged device_id, a torch/CuPy device
 * index), and skips its pointer lookups. Cleared by that next op whatever its
 * outcome, and by cubridge_call_end (a hint given inside a runtime call lasts
 * no longer than the call); -1 clears it now. An invalid device is CUBRIDGE_ERR_INVALID_ARGUMENT
 * (and clears it). On the CPU backend only 0 is accepted (and changes
 * nothing: every pointer is host memory there). */
CUBRIDGE_API cubridge_status cubridge_assume_device(int device);

/* ---- memory ----------------------------------------------------------- */

/* Allocate `bytes` of `kind` (DEVICE, MANAGED or PINNED), 256-byte aligned.
 * bytes == 0 gives *ptr == NULL and CUBRIDGE_OK. MANAGED refuses a request
 * larger than the device's free memory with CUBRIDGE_ERR_OUT_OF_MEMORY. */
CUBRIDGE_API cubridge_status cubridge_malloc(int kind, size_t bytes, void** ptr);

/* Free memory from cubridge_malloc with the same kind. NULL is a no-op. */
CUBRIDGE_API cubridge_status cubridge_free(int kind, void* ptr);

/* What kind of memory `ptr` is, and on which device (-1 for host memory).
 * On the CPU backend every pointer is CUBRIDGE_MEMORY_HOST on device -1.
 * `device` may be NULL. */
CUBRIDGE_API cubridge_status cubridge_pointer_kind(const void* ptr, int* kind, int* device);

/* Copy between any two kinds of memory. Async on `stream` when both sides are
 * device/managed/pinned; synchronous when either side is pageable host.
 * dst == src is a no-op; partial overlap is CUBRIDGE_ERR_INVALID_ARGUMENT.
 * On a default stream, device memory to another device's is copied after the
 * work queued on either device and before the work queued next on them. */
CUBRIDGE_API cubridge_status cubridge_memcpy(void* dst, const void* src, size_t bytes,
                                             cubridge_stream stream);

/* ---- memory: stream-ordered, pooled, per device ---- */
/* Allocate `bytes` of `kind` on `device` (-1: the device of `stream` when
 * `stream` is not NULL, else the calling thread's device). DEVICE memory
 * comes from the library's memory pool of that device (cudaMallocAsync on
 * `stream`, NULL = that device's default stream): usable at once on
 * `stream`, on other streams after ordering with it. Freed blocks stay cached
 * in the pool; under memory pressure cached blocks are released to the
 * driver and the allocation retried before CUBRIDGE_ERR_OUT_OF_MEMORY. PINNED
 * comes from a pinned-host cache (any device may use it; `device` is only
 * checked). MANAGED is cudaMallocManaged with `device` current (not cached).
 * A `stream` of another device than `device` is CUBRIDGE_ERR_INVALID_ARGUMENT.
 * On the CPU backend every kind is aligned host memory (malloc, counted in
 * device 0's stats; nothing is cached). bytes == 0 gives *ptr == NULL. */
CUBRIDGE_API cubridge_status cubridge_malloc_async(int kind, size_t bytes, int device,
                                                   cubridge_stream stream, void** ptr);
/* Free memory from cubridge_malloc_async; the block becomes reusable once
 * `stream` reaches this point (never earlier on another stream). NULL is a
 * no-op. `stream` NULL: the default stream of the block's device. The kind
 * must match the allocation's. cubridge_free accepts this memory too (and
 * cubridge_free_async accepts cubridge_malloc memory, freed synchronously). */
CUBRIDGE_API cubridge_status cubridge_free_async(int kind, void* ptr, cubridge_stream stream);
typedef struct cubridge_memory_stats {
  size_t struct_size;      /* caller sets sizeof(cubridge_memory_stats) */
  uint64_t in_use_bytes;   /* handed out and not yet freed */
  uint64_t reserved_bytes; /* held by the pool (in use + cached) */
  uint64_t peak_in_use_bytes;
  uint64_t alloc_count; /* allocations since start */
  uint64_t free_count;
  uint64_t cached_bytes;  /* freed blocks kept for their next allocation: the
                             block cache's and the runtime's array cache's (part
                             of reserved_bytes; added in 0.1: callers that set
                             the older struct_size get every other field) */
  uint64_t scratch_bytes; /* the library's own device memory: the host-array
                             path's staging buffers and the reductions' scratch
                             (part of reserved_bytes; cubridge_empty_cache
                             returns the staging not in use; added in 0.2) */
} cubridge_memory_stats;
/* Stats of the library's DEVICE pool on `device` (-1: current): the counts
 * cover cubridge_malloc_async DEVICE allocations (bytes as requested);
 * reserved_bytes is what the pool holds from the driver, the library's own
 * scratch and staging included; cached_bytes what its caches keep for the
 * next allocations (not in use: in_use_bytes leaves them out);
 * scratch_bytes the staging and scratch.
 * PINNED and MANAGED memory are not counted. CPU backend: every kind counted
 * on device 0, reserved == in use + cached host blocks. */
CUBRIDGE_API cubridge_status cubridge_memory_stats_get(int device, cubridge_memory_stats* stats);
/* Return cached, unused pool memory of `device` (-1: every device) to the
 * driver: the block cache, the runtime's array cache (runtime.h), the idle
 * staging buffers of the host-array path; waits for the device's work, then
 * trims its pool; also frees the cached pinned blocks. On the CPU backend:
 * the cached host blocks. */
CUBRIDGE_API cubridge_status cubridge_empty_cache(int device);

/* Releases every cache the library keeps, on every device (added in 0.2): what
 * cubridge_empty_cache releases, and also the staging sets and streams of the
 * host-array path, the reductions' scratch and result slots, and spare
 * events; it waits for each device's work first. Afterwards no memory the
 * library allocated for itself is left (a leak checker at exit sees only what
 * the caller still holds), and the library stays usable: the caches grow
 * again on use. Call it when no other thread is using the library (the end
 * of a program or a test suite); the Python module calls it when it is
 * freed. */
CUBRIDGE_API cubridge_status cubridge_shutdown(void);

/* Migrate managed memory towards `device` (-1: the host). No-op on CPU. */
CUBRIDGE_API cubridge_status cubridge_prefetch(const void* ptr, size_t bytes, int device,
                                               cubridge_stream stream);

/* ---- streams and events ----------------------------------------------- */

CUBRIDGE_API cubridge_status cubridge_stream_create(cubridge_stream* stream);
CUBRIDGE_API cubridge_status cubridge_stream_destroy(cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_stream_synchronize(cubridge_stream stream);
/* *done = 1 when all work queued on `stream` so far has finished, else 0;
 * does not wait (cudaStreamQuery). A failed kernel's error is returned as
 * cubridge_stream_synchronize would. The CPU backend's work is done when its
 * call returns: always 1. */
CUBRIDGE_API cubridge_status cubridge_stream_query(cubridge_stream stream, int* done);
/* Wraps a foreign cudaStream_t (CuPy's, torch's) without owning it. Release
 * the wrapper with cubridge_stream_destroy, which leaves the foreign stream
 * alone. On the CPU backend the handle is ignored. */
CUBRIDGE_API cubridge_status cubridge_stream_from_handle(uintptr_t handle, cubridge_stream* stream);
/* As cubridge_stream_from_handle, but the default-stream handles (0 and 1:
 * the legacy default stream, 2: the per-thread one) name that stream of
 * `device`, not of the calling thread's current device: events recorded and
 * waits queued on the wrapper reach `device` whichever device is current.
 * -1: the current device's (cubridge_stream_from_handle). Other handles name
 * a stream that knows its device; `device` is only checked then. */
CUBRIDGE_API cubridge_status cubridge_stream_from_handle_on(uintptr_t handle, int device,
                                                            cubridge_stream* stream);
/* Wait for all work on the current device. */
CUBRIDGE_API cubridge_status cubridge_device_synchronize(void);
/* A new stream on `device` (-1: current). cubridge_stream_create keeps using
 * the current one. */
CUBRIDGE_API cubridge_status cubridge_stream_create_on(int device, cubridge_stream* stream);
/* Device of a stream (NULL, and wrapped legacy/per-thread default handles:
 * the calling thread's device; 0 on the CPU backend). */
CUBRIDGE_API cubridge_status cubridge_stream_device(cubridge_stream stream, int* device);
/* The cudaStream_t behind `stream`, for other libraries
 * (torch.cuda.ExternalStream, cupy.cuda.ExternalStream): 0 for NULL (the
 * default stream) and on the CPU backend. */
CUBRIDGE_API cubridge_status cubridge_stream_handle(cubridge_stream stream, uintptr_t* handle);
/* A wrapper of `handle` when it is a live stream this library created
 * (cubridge_stream_create*), else *stream = NULL. Asks CUDA nothing, so it is
 * safe on a handle whose stream may have been destroyed. Release the wrapper
 * with cubridge_stream_destroy. */
CUBRIDGE_API cubridge_status cubridge_stream_lookup(uintptr_t handle, cubridge_stream* stream);
/* *ours = 1 when `stream` is a stream this library created, or a wrapper of
 * one that was live when wrapped, else 0 (NULL, a caller's stream). */
CUBRIDGE_API cubridge_status cubridge_stream_is_ours(cubridge_stream stream, int* ours);
/* `stream` waits (on the device, no host sync) until `event`'s recorded work
 * is done. An event never recorded is complete (no wait), as in CUDA. No-op
 * on the CPU backend. On a stream that records a graph, `event` must have
 * been recorded in that recording: CUDA refuses others and ends it. */
CUBRIDGE_API cubridge_status cubridge_stream_wait_event(cubridge_stream stream,
                                                        cubridge_event event);

/* ---- graphs: record the work enqueued on a stream, replay it as one launch ----
 * Between begin and end, the asynchronous ops called with `stream` (a created
 * stream, not the default one) are recorded instead of run. Ops that return
 * to the host (reductions, host-array paths, synchronize) cannot be recorded:
 * they are refused, or end_capture fails and the stream runs normally again. Each launch
 * replays the recorded ops with the pointers and sizes they were given, on
 * the recording's device. CUDA backend only (else CUBRIDGE_ERR_NO_DEVICE).
 * Created streams are ordered with the legacy default stream, so while one
 * records, work on the default stream from any thread (an op, a copy, a free
 * there, cubridge_empty_cache) ends the recording with an error: the Python
 * and Go packages hold their own frees back until the recording ends. */
typedef struct cubridge_graph_s* cubridge_graph;
CUBRIDGE_API cubridge_status cubridge_stream_begin_capture(cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_stream_end_capture(cubridge_stream stream,
                                                         cubridge_graph* graph);
/* *capturing = 1 while `stream` records a graph, whoever began the recording
 * (begin_capture, or another library capturing the same CUDA stream:
 * torch.cuda.graph, CuPy), else 0. While it records, memory cannot be
 * allocated on it (cubridge_malloc_async refuses). Default streams and the CPU
 * backend: 0. */
CUBRIDGE_API cubridge_status cubridge_stream_is_capturing(cubridge_stream stream, int* capturing);
/* Enqueues the whole recording on `stream` (NULL: the default stream). */
CUBRIDGE_API cubridge_status cubridge_graph_launch(cubridge_graph graph, cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_graph_destroy(cubridge_graph graph);

CUBRIDGE_API cubridge_status cubridge_event_create(cubridge_event* event);
CUBRIDGE_API cubridge_status cubridge_event_destroy(cubridge_event event);
/* Records on `stream`; an event created on another device than the stream's
 * is moved to the stream's device first. */
CUBRIDGE_API cubridge_status cubridge_event_record(cubridge_event event, cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_event_synchronize(cubridge_event event);
/* Milliseconds between two recorded events (after both completed). */
CUBRIDGE_API cubridge_status cubridge_event_elapsed_ms(cubridge_event start, cubridge_event end,
                                                       float* ms);

/* ---- elementwise ops --------------------------------------------------
 * All arrays have n elements of `dtype`, contiguous. `out` may be the same
 * pointer as an input (exact aliasing is safe); partial overlap is
 * CUBRIDGE_ERR_INVALID_ARGUMENT. Integer ops wrap around on overflow. */

/* out[i] = a[i] + b[i]   (sub: a - b, mul: a * b) */
CUBRIDGE_API cubridge_status cubridge_add(int dtype, const void* a, const void* b, void* out,
                                          size_t n, cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_sub(int dtype, const void* a, const void* b, void* out,
                                          size_t n, cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_mul(int dtype, const void* a, const void* b, void* out,
                                          size_t n, cubridge_stream stream);
/* out[i] = b[i] != 0 ? a[i] / b[i] : zero_value (integers: truncating division). */
CUBRIDGE_API cubridge_status cubridge_div(int dtype, const void* a, const void* b, void* out,
                                          size_t n, double zero_value, cubridge_stream stream);
/* y[i] = alpha * x[i] + y[i]. x may be the same pointer as y.
 * Floating types compute in the dtype's own precision (float16/bfloat16 in
 * float32) with a rounded multiply then a rounded add (no FMA), so the CPU and
 * GPU backends agree bit for bit. For integer dtypes alpha must be a whole
 * number in int64 range (else CUBRIDGE_ERR_INVALID_ARGUMENT) and the
 * arithmetic wraps. */
CUBRIDGE_API cubridge_status cubridge_axpy(int dtype, double alpha, const void* x, void* y,
                                           size_t n, cubridge_stream stream);
/* x[i] *= alpha (alpha rules as for axpy) */
CUBRIDGE_API cubridge_status cubridge_scale(int dtype, double alpha, void* x, size_t n,
                                            cubridge_stream stream);
/* out[i] = alpha * x[i] + y[i] and out[i] = alpha * x[i], in one pass into an
 * array of their own (or in place: out may be x or y), with the rules of
 * cubridge_axpy and cubridge_scale. */
CUBRIDGE_API cubridge_status cubridge_axpy_out(int dtype, double alpha, const void* x,
                                               const void* y, void* out, size_t n,
                                               cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_scale_out(int dtype, double alpha, const void* x, void* out,
                                                size_t n, cubridge_stream stream);
/* x[i] = value, converted to dtype as cubridge_convert converts a float64 */
CUBRIDGE_API cubridge_status cubridge_fill(int dtype, double value, void* x, size_t n,
                                           cubridge_stream stream);
/* dst[i] = (dst_dtype) src[i]; float -> int truncates toward zero, saturates
 * at the integer's range and maps NaN to 0; int -> int wraps; everything else
 * rounds to nearest even. dst may be src only when both dtypes have the same
 * size (any other overlap is CUBRIDGE_ERR_INVALID_ARGUMENT). */
CUBRIDGE_API cubridge_status cubridge_convert(int src_dtype, const void* src, int dst_dtype,
                                              void* dst, size_t n, cubridge_stream stream);

/* ---- reductions --------------------------------------------------------
 * The result goes to host memory at `result`, typed as
 * cubridge_sum_dtype(input dtype): sum and dot of floating types
 * accumulate and return float64; of integer types, int64 (wrapping). min and
 * max return the input dtype. Results are deterministic run to run.
 * min/max of n == 0 is CUBRIDGE_ERR_INVALID_ARGUMENT; sum/dot of n == 0 is 0.
 * min/max return NaN if any element is NaN. `result` must be host memory
 * (pageable or pinned). The result is in `result` when the call returns. */
CUBRIDGE_API int cubridge_sum_dtype(int dtype); /* -1 if unknown */
CUBRIDGE_API cubridge_status cubridge_sum(int dtype, const void* x, size_t n, void* result,
                                          cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_dot(int dtype, const void* x, const void* y, size_t n,
                                          void* result, cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_min(int dtype, const void* x, size_t n, void* result,
                                          cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_max(int dtype, const void* x, size_t n, void* result,
                                          cubridge_stream stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CUBRIDGE_CUBRIDGE_H_ */
