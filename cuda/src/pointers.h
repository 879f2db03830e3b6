// Argument checks shared by the ops, and the choice of execution path from
// where the pointers live.
#ifndef CUBRIDGE_SRC_POINTERS_H_
#define CUBRIDGE_SRC_POINTERS_H_

#include <stddef.h>
#include <stdint.h>

#include "cubridge/cubridge.h"

namespace cubridge {

enum class Loc { kPageable, kPinned, kDevice, kManaged };

struct PtrInfo {
  Loc loc;
  int device;  // -1 for host memory
};

// Where p lives (CUDA backend only): from the table of cubridge_malloc's
// allocations when p lies in one, else one cudaPointerGetAttributes.
cubridge_status query_pointer(const char* fn, const char* arg, const void* p, PtrInfo* info);

// The table of live cubridge_malloc allocations: cudaPointerGetAttributes
// costs about as much as a kernel launch, and every op asks for each pointer.
void remember_allocation(const void* p, size_t bytes, PtrInfo info);
void forget_allocation(const void* p);

enum class Path {
  kCpu,     // CPU backend, or small host arrays: CPU threads
  kDevice,  // every pointer is device-accessible: kernels on the stream
  kHost     // host arrays on the GPU backend: pipelined through staging
};

struct Route {
  Path path;
  int device;  // device of the first device/managed pointer, else -1
};

struct Arg {
  const char* name;
  const void* ptr;
};

// Picks the path for an op over `args` (non-null, already checked).
// `host_bytes` is the total bytes the op touches: small host-only calls run
// on CPU threads even on the GPU backend (a GPU round trip costs more).
cubridge_status route(const char* fn, const Arg* args, int count, size_t host_bytes, Route* r);

// "fn: argument 'name' is NULL but n = N"
cubridge_status check_not_null(const char* fn, const char* name, const void* p, size_t n);

// Unknown dtype -> UNSUPPORTED_DTYPE naming the argument.
cubridge_status check_dtype(const char* fn, const char* name, int dtype);

// n * size must fit in size_t (and in the address space).
cubridge_status check_length(const char* fn, size_t n, size_t size);

// Ranges [a, a + n*sa) and [b, b + n*sb) may be identical (same start, same
// element size) or disjoint; anything else is INVALID_ARGUMENT.
cubridge_status check_overlap(const char* fn, const char* na, const void* a, size_t sa,
                              const char* nb, const void* b, size_t sb, size_t n);

// Host arrays at most this many bytes in total run on CPU threads even on the
// GPU backend.
constexpr size_t kHostInlineBytes = 1 << 20;

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_POINTERS_H_
