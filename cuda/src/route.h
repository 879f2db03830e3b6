// The execution path of one op (CPU threads, kernels on a stream, or the
// pipelined host path), chosen from where its pointers live.
#ifndef CUBRIDGE_SRC_ROUTE_H_
#define CUBRIDGE_SRC_ROUTE_H_

#include <stddef.h>

#include "cubridge/cubridge.h"
#include "devices.h"

namespace cubridge {

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

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ROUTE_H_
