// Argument checks shared by the ops, and the choice of execution path from
// where the pointers live.
#ifndef CUBRIDGE_SRC_POINTERS_H_
#define CUBRIDGE_SRC_POINTERS_H_

#include <stddef.h>
#include <stdint.h>

#include "cubridge/cubridge.h"
#include "devices.h"

namespace cubridge {

enum class Loc { kPageable, kPinned, kDevice, kManaged };

struct PtrInfo {
  Loc loc;
  int device;  // -1 for host memory
};

// Where p lives (CUDA backend only): from the table of cubridge_malloc's
// allocations when p lies in one, else one cudaPointerGetAttributes.
cubridge_status query_pointer(const char* fn, const char* arg, const void* p, PtrInfo* info);

// Which allocator a table entry came from.
enum class Origin : uint8_t {
  kMalloc,  // cubridge_malloc (cudaMalloc, cudaMallocManaged, cudaMallocHost)
  kPool,    // cubridge_malloc_async DEVICE: the device's memory pool
  kPinned,  // cubridge_malloc_async PINNED: the pinned-host cache
  kHost     // CPU backend: aligned_alloc
};

struct Allocation {
  uintptr_t end;
  PtrInfo info;
  Origin origin;
};

// The table of live allocations of the library: cudaPointerGetAttributes
// costs about as much as a kernel launch, and every op asks for each pointer.
// remember_allocation returns false when the table could not grow.
bool remember_allocation(const void* p, size_t bytes, PtrInfo info, Origin origin);
// Removes the entry starting exactly at p; false if there is none.
bool forget_allocation(const void* p, Allocation* out = nullptr);

enum class Path {
  kCpu,     // CPU backend, or small host arrays: CPU threads
  kDevice,  // every pointer is device-accessible: kernels on the stream
  kHost     // host arrays on the GPU backend: pipelined through staging
};

// The execution plan of one op. Declare it first thing in an op: it takes
// (and so clears) this thread's cubridge_assume_device hint. route() switches
// to the op's device; the guard restores the caller's when the Route dies.
struct Route {
  Route() : assumed(take_assumed_device()) {}
  Path path = Path::kCpu;
  int device = -1;  // the device the op runs on (kDevice path), else -1
  int assumed;      // cubridge_assume_device's device for this op, or -1
  DeviceGuard guard;
};

struct Arg {
  const char* name;
  const void* ptr;
};

// Picks the path for an op over `args` (non-null, already checked) and makes
// the op's device current. `host_bytes` is the total bytes the op touches:
// small host-only calls run on CPU threads even on the GPU backend (a GPU
// round trip costs more). Device arrays of two devices, or a stream of
// another device, are INVALID_ARGUMENT.
cubridge_status route(const char* fn, const Arg* args, int count, size_t host_bytes,
                      cubridge_stream stream, Route* r);

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
