// Status codes, the thread-local error message, and CUDA error mapping.
#ifndef CUBRIDGE_SRC_STATUS_H_
#define CUBRIDGE_SRC_STATUS_H_

#include <cuda_runtime_api.h>

#include "cubridge/cubridge.h"

namespace cubridge {

// Clears this thread's message (every successful ABI call leaves "").
void clear_error();

// Sets this thread's message (printf-style) and returns `status`.
cubridge_status fail(cubridge_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Maps a CUDA error to a status, sets the message "<fn>: <what>: <cuda error>"
// and clears non-sticky errors from the runtime so later calls work. Sticky
// errors are remembered: every later GPU op fails with CUBRIDGE_ERR_CUDA_STICKY.
cubridge_status fail_cuda(cudaError_t err, const char* fn, const char* what);

// True after a sticky CUDA error was seen.
bool cuda_is_sticky();

// The message buffer for this thread.
const char* last_error();

}  // namespace cubridge

// Evaluates a CUDA call; on failure returns the mapped status from the
// enclosing function.
#define CUBRIDGE_CUDA(fn, call)                                                               \
  do {                                                                                        \
    cudaError_t cubridge_err_ = (call);                                                       \
    if (cubridge_err_ != cudaSuccess) return ::cubridge::fail_cuda(cubridge_err_, fn, #call); \
  } while (0)

// Returns from the enclosing function if `expr` is not CUBRIDGE_OK.
#define CUBRIDGE_TRY(expr)                                \
  do {                                                    \
    cubridge_status cubridge_st_ = (expr);                \
    if (cubridge_st_ != CUBRIDGE_OK) return cubridge_st_; \
  } while (0)

#endif  // CUBRIDGE_SRC_STATUS_H_
