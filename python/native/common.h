/*
 * What every file of cubridge._native includes first: Python (limited API:
 * Py_LIMITED_API is set by the build, no CPython internals), the C ABI and
 * its runtime, and the extension's fixed limits.
 */
#ifndef CUBRIDGE_CEXT_COMMON_H_
#define CUBRIDGE_CEXT_COMMON_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "cubridge/cubridge.h"
#include "cubridge/runtime.h"

/* Most dimensions an array argument may have (the runtime's limit). */
#define CB_MAX_NDIM CUBRIDGE_MAX_NDIM
/* Room for the C ABI's tables (cubridge_dtype_count, cubridge_status_count);
 * the module refuses to load if the library reports more. */
#define CB_MAX_DTYPES 32
#define CB_MAX_STATUSES 64
#define CB_NUM_MEMORY_KINDS 4

/* The module's state (module.h): one part per unit of the extension, each
 * made, visited and cleared by its unit. Units take the whole state, since a
 * call needs several of them; their headers only see this declaration. */
typedef struct cb_module cb_module;

/* DLPack and the CUDA array interface name our default stream (0) 1, the
 * legacy default stream. */
static inline uintptr_t cb_norm_stream(uintptr_t h) { return h == 0 ? 1 : h; }

/* The consumer stream of an import while the call's stream records a graph:
 * nothing is ordered now (the recording runs when it is launched), and DLPack
 * producers are asked for none (stream=-1). */
#define CB_STREAM_UNORDERED ((uintptr_t)-1)

/* Py_VISIT / Py_CLEAR over `n` references stored in `refs`. */
#define CB_VISIT_ALL(refs, n)                                                     \
  do {                                                                            \
    for (size_t cb_i_ = 0; cb_i_ < (size_t)(n); cb_i_++) Py_VISIT((refs)[cb_i_]); \
  } while (0)
#define CB_CLEAR_ALL(refs, n)                                                     \
  do {                                                                            \
    for (size_t cb_i_ = 0; cb_i_ < (size_t)(n); cb_i_++) Py_CLEAR((refs)[cb_i_]); \
  } while (0)

#endif /* CUBRIDGE_CEXT_COMMON_H_ */
