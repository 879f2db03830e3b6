/*
 * cubridge binding ABI (added in 0.2, issue 44): your own kernels behind cubridge's
 * front ends. A kernel is described once (a declaration, docs/bind.md, from
 * which `cubind` generates a cubridge_kernel) and every front end calls it the
 * same way: Python through cubridge's extension (cubridge/python.h), Go
 * through cubridge.Kernel, C and C++ through cubridge_kernel_call.
 *
 * What the library does around the call, from the declaration:
 *  - each array argument is checked (cubridge_view_check: C-contiguous, ndim,
 *    write access), then against its declared dtypes ("float32|float64", or
 *    "like x") and its declared shape ("x[n]", "c[m,n]": a dimension symbol
 *    takes the size where it first appears and must match everywhere else);
 *  - an array the kernel writes may not overlap any other array argument;
 *  - the stream: the one given, else (CUBRIDGE_CALL_FOLLOW_PRODUCER) the one
 *    that produced the first array, ordered after every producer and, after
 *    the kernel, the producers after it (runtime.h's calls);
 *  - the device: every device or managed array on one device, made current
 *    for the kernel and restored after; a stream of another device is refused;
 *  - host arrays (pageable memory): on the CUDA backend, with
 *    CUBRIDGE_HOST_STAGE (the default), staged through the library's device
 *    memory on the call's stream (inputs copied in, outputs copied back before
 *    the call returns); with CUBRIDGE_HOST_CPU, given to the kernel as they
 *    are, to run on the host. On the CPU backend every array is host memory
 *    and the kernel runs on the host;
 *  - errors: every failure is a status and a message naming the kernel and
 *    the argument, also the kernel's own (cubridge_launch_fail).
 *
 * A kernel author writes one C entry point per kernel. cubind generates its
 * prototype (in <decl>.bind.h) from the declaration: the launch, then every
 * parameter in declared order (an array as `const cubridge_view*`, a float
 * scalar as double, an int scalar as int64_t), then every dimension symbol as
 * int64_t in order of first appearance:
 *
 *   // saxpy.bind: in x float32|float64 [n]; inout y like x [n]; scalar a float
 *   cubridge_status saxpy(const cubridge_launch* l, const cubridge_view* x,
 *                         const cubridge_view* y, double a, int64_t n) {
 *     if (l->device < 0) { ... run on the host ...; return CUBRIDGE_OK; }
 *     my_kernel<<<grid, block, 0, (cudaStream_t)l->stream>>>(...);
 *     return cubridge_launch_cuda(l, cudaGetLastError(), "my_kernel");
 *   }
 *
 * The entry point needs cubridge's headers only, never its library: a Python
 * extension calls it through cubridge's own extension, whose library is the
 * one in the process. The rules of cubridge.h hold: plain C; structs start
 * with struct_size (or version) and later versions only append.
 */
#ifndef CUBRIDGE_BIND_H_
#define CUBRIDGE_BIND_H_

#include <stdarg.h>
#include <stdio.h>

#include "cubridge/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the structs below; a descriptor says which it was made for
 * and the library refuses a newer one. */
#define CUBRIDGE_BIND_VERSION 1

/* Limits of one kernel. */
#define CUBRIDGE_KERNEL_MAX_PARAMS 16
#define CUBRIDGE_KERNEL_MAX_ARRAYS CUBRIDGE_CALL_MAX_ARGS /* 8 */
#define CUBRIDGE_KERNEL_MAX_NDIM 8
#define CUBRIDGE_KERNEL_MAX_DIMS 16

/* What a parameter is. */
typedef enum cubridge_param_kind {
  CUBRIDGE_PARAM_IN = 1,    /* an array the kernel reads */
  CUBRIDGE_PARAM_OUT = 2,   /* an array the kernel writes (front ends may allocate it) */
  CUBRIDGE_PARAM_INOUT = 3, /* an array the kernel reads and writes */
  CUBRIDGE_PARAM_FLOAT = 4, /* a real scalar (double) */
  CUBRIDGE_PARAM_INT = 5    /* an integer scalar (int64_t) */
} cubridge_param_kind;

/* How host arrays (pageable memory) reach the kernel on the CUDA backend. */
typedef enum cubridge_host_policy {
  CUBRIDGE_HOST_STAGE = 0, /* copied to device memory and back: the kernel sees device arrays */
  CUBRIDGE_HOST_CPU = 1    /* given as they are: the kernel runs on the host (device -1) */
} cubridge_host_policy;

/* What a Python front end returns for an array it allocated. */
typedef enum cubridge_result_policy {
  CUBRIDGE_RESULT_ARRAY = 0, /* cubridge.Array for device memory, numpy.ndarray for host */
  CUBRIDGE_RESULT_CALLER = 1 /* the first array argument's library's (torch, CuPy, JAX) */
} cubridge_result_policy;

/* One parameter of a kernel. */
typedef struct cubridge_kernel_param {
  const char* name; /* as written in the declaration ("x") */
  int kind;         /* cubridge_param_kind */
  unsigned dtypes;  /* arrays: the accepted dtypes, bit (1u << dtype) each; 0 with `like` */
  int like;         /* arrays: the parameter whose dtype this one has, or -1 */
  int ndim;         /* arrays: declared dimensions */
  /* arrays: each dimension, >= 0 a fixed size, < 0 the symbol -1 - dims[i] */
  int dims[CUBRIDGE_KERNEL_MAX_NDIM];
  int sets_dim; /* int scalars: the symbol whose size it is, or -1 */
} cubridge_kernel_param;

struct cubridge_launch;

/* A kernel: what cubind generates from a declaration (static data). */
typedef struct cubridge_kernel {
  int version;        /* CUBRIDGE_BIND_VERSION it was made for */
  const char* name;   /* "saxpy" */
  const char* doc;    /* one paragraph, or NULL */
  const char* source; /* "saxpy/saxpy.bind", for messages; may be NULL */
  int host;           /* cubridge_host_policy */
  int result;         /* cubridge_result_policy */
  int nparams;        /* at most CUBRIDGE_KERNEL_MAX_PARAMS */
  const cubridge_kernel_param* params;
  int ndims;               /* dimension symbols, at most CUBRIDGE_KERNEL_MAX_DIMS */
  const char* const* dims; /* their names ("n", "m") */
  /* The generated trampoline: unpacks the launch into the entry point's
   * parameters and calls it. */
  cubridge_status (*entry)(const struct cubridge_launch* launch);
} cubridge_kernel;

/* A scalar argument, by its parameter's kind. */
typedef union cubridge_scalar {
  double f;  /* CUBRIDGE_PARAM_FLOAT */
  int64_t i; /* CUBRIDGE_PARAM_INT */
} cubridge_scalar;

/* What the entry point is given (through its trampoline). */
typedef struct cubridge_launch {
  size_t struct_size;
  const cubridge_kernel* kernel;
  const cubridge_view* const* arrays; /* by parameter index; NULL for scalars */
  const cubridge_scalar* scalars;     /* by parameter index */
  const int64_t* dims;                /* by symbol index */
  /* >= 0: every array is memory the GPU reaches (device, managed, pinned, or
   * staged host memory), this device is current, launch on `stream`.
   * -1: every array is host memory (the CPU backend, or CUBRIDGE_HOST_CPU):
   * run on the host, now. */
  int device;
  uintptr_t stream; /* the cudaStream_t to launch on (0: the default stream) */
  /* The library's: set the thread's message ("<kernel>: <message>") and
   * return `status`; map a cudaError_t (0: CUBRIDGE_OK). Use the inline
   * helpers below. */
  cubridge_status (*fail)(const struct cubridge_launch* launch, cubridge_status status,
                          const char* message);
  cubridge_status (*cuda_error)(const struct cubridge_launch* launch, int error, const char* what);
} cubridge_launch;

/* The kernel failed: `status` with a printf-style message. */
static inline cubridge_status cubridge_launch_fail(const cubridge_launch* l, cubridge_status status,
                                                   const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline cubridge_status cubridge_launch_fail(const cubridge_launch* l, cubridge_status status,
                                                   const char* fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return l->fail(l, status, message);
}

/* A CUDA runtime error (cudaGetLastError() after a launch, a cudaError_t of
 * any call) as a status: CUBRIDGE_OK for cudaSuccess (0), else the status
 * cubridge gives that error, with "<kernel>: <what>: <CUDA's message>". */
static inline cubridge_status cubridge_launch_cuda(const cubridge_launch* l, int error,
                                                   const char* what) {
  return error == 0 ? CUBRIDGE_OK : l->cuda_error(l, error, what);
}

/* ---- calling a kernel --------------------------------------------------- */

/* The whole call, for C and C++ (and Go's cubridge.Kernel): `arrays` and
 * `scalars` by parameter index (an array's slot in `scalars` and a scalar's in
 * `arrays` are ignored); each view is checked, ordered and written back as
 * cubridge_call_add does; every array must be given (out arrays too).
 * flags: CUBRIDGE_CALL_FOLLOW_PRODUCER or 0. Returns the kernel's status. */
CUBRIDGE_API cubridge_status cubridge_kernel_call(const cubridge_kernel* kernel,
                                                  cubridge_view* const* arrays,
                                                  const cubridge_scalar* scalars,
                                                  cubridge_stream stream, int flags);

/* The same in steps, for front ends that import and allocate arrays between
 * them (cubridge's Python extension):
 *
 *   cubridge_kernel_call_state k;
 *   cubridge_kernel_begin(&k, kernel);
 *   cubridge_kernel_scalar(&k, i, value);       // each scalar
 *   cubridge_call_add(&call, view, access);     // each array given ...
 *   cubridge_kernel_array(&k, i, view);         // ... then its dtype and shape
 *   cubridge_kernel_result(&k, i, &dt, &nd, shape);  // an out array not given: allocate it
 *   status = cubridge_kernel_launch(&k, &call); // staging, device, the kernel
 *   status = cubridge_call_end(&call, status);
 */
typedef struct cubridge_kernel_call_state {
  size_t struct_size; /* caller sets sizeof(cubridge_kernel_call_state) */
  const cubridge_kernel* kernel;
  /* The library's: */
  cubridge_view* arrays[CUBRIDGE_KERNEL_MAX_PARAMS];
  cubridge_scalar scalars[CUBRIDGE_KERNEL_MAX_PARAMS];
  unsigned given; /* bit per parameter */
  int dtypes[CUBRIDGE_KERNEL_MAX_PARAMS];
  int64_t dims[CUBRIDGE_KERNEL_MAX_DIMS];
  int dim_from[CUBRIDGE_KERNEL_MAX_DIMS]; /* the parameter that set each symbol, -1: none yet */
} cubridge_kernel_call_state;

/* Starts a call of `kernel`; checks its version and limits. */
CUBRIDGE_API cubridge_status cubridge_kernel_begin(cubridge_kernel_call_state* state,
                                                   const cubridge_kernel* kernel);
/* Scalar parameter `param`. An int scalar that sizes a dimension must be >= 0. */
CUBRIDGE_API cubridge_status cubridge_kernel_scalar(cubridge_kernel_call_state* state, int param,
                                                    cubridge_scalar value);
/* Array parameter `param`: `view`, already checked (cubridge_call_add or
 * cubridge_view_check), against the declared dtypes and shape. The view is
 * named after the parameter when it has no name. It must stay valid until
 * the launch. */
CUBRIDGE_API cubridge_status cubridge_kernel_array(cubridge_kernel_call_state* state, int param,
                                                   cubridge_view* view);
/* The dtype and shape an out array `param` must have, from what was given so
 * far (*ndim dimensions into shape[CUBRIDGE_KERNEL_MAX_NDIM]);
 * INVALID_ARGUMENT when a dimension or the dtype is not known yet. */
CUBRIDGE_API cubridge_status cubridge_kernel_result(const cubridge_kernel_call_state* state,
                                                    int param, int* dtype, int* ndim,
                                                    int64_t* shape);
/* Runs the kernel inside `call`, whose arguments are exactly the state's
 * arrays: checks that every parameter was given and no written array
 * overlaps another, picks the device, stages host arrays, makes the device
 * current, calls the entry point with the call's stream, copies staged
 * outputs back, restores the device. An empty call (every array of 0
 * elements) runs nothing. The caller ends the call (cubridge_call_end). */
CUBRIDGE_API cubridge_status cubridge_kernel_launch(cubridge_kernel_call_state* state,
                                                    cubridge_call* call);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CUBRIDGE_BIND_H_ */
