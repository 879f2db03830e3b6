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
 *  - Host-path details: elementwise ops whose host arrays total at most 1 MiB
 *    run on CPU threads even on the GPU backend (a GPU round trip costs more);
 *    larger ones are pipelined in 4 MiB chunks through cached pinned staging
 *    buffers on three internal streams (`stream` is not used). Reductions of
 *    host arrays always run on CPU threads (staging them would cost as much as
 *    the CPU pass itself). fill of host arrays always runs on CPU threads.
 */
#ifndef CUBRIDGE_CUBRIDGE_H_
#define CUBRIDGE_CUBRIDGE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUBRIDGE_VERSION_MAJOR 0
#define CUBRIDGE_VERSION_MINOR 1
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
 * dst == src is a no-op; partial overlap is CUBRIDGE_ERR_INVALID_ARGUMENT. */
CUBRIDGE_API cubridge_status cubridge_memcpy(void* dst, const void* src, size_t bytes,
                                             cubridge_stream stream);

/* Migrate managed memory towards `device` (-1: the host). No-op on CPU. */
CUBRIDGE_API cubridge_status cubridge_prefetch(const void* ptr, size_t bytes, int device,
                                               cubridge_stream stream);

/* ---- streams and events ----------------------------------------------- */

CUBRIDGE_API cubridge_status cubridge_stream_create(cubridge_stream* stream);
CUBRIDGE_API cubridge_status cubridge_stream_destroy(cubridge_stream stream);
CUBRIDGE_API cubridge_status cubridge_stream_synchronize(cubridge_stream stream);
/* Wraps a foreign cudaStream_t (CuPy's, torch's) without owning it. Release
 * the wrapper with cubridge_stream_destroy, which leaves the foreign stream
 * alone. On the CPU backend the handle is ignored. */
CUBRIDGE_API cubridge_status cubridge_stream_from_handle(uintptr_t handle, cubridge_stream* stream);
/* Wait for all work on the current device. */
CUBRIDGE_API cubridge_status cubridge_device_synchronize(void);

CUBRIDGE_API cubridge_status cubridge_event_create(cubridge_event* event);
CUBRIDGE_API cubridge_status cubridge_event_destroy(cubridge_event event);
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
