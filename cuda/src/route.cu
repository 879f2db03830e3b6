// The choice of execution path from where an op's pointers live.
#include "backend.h"
#include "pointers.h"
#include "route.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

namespace cubridge {

cubridge_status route(const char* fn, const Arg* args, int count, size_t host_bytes,
                      cubridge_stream stream, Route* r) {
  r->device = -1;
  if (on_cpu()) {
    r->path = Path::kCpu;
    return CUBRIDGE_OK;
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  const int sdev = stream ? stream->device : -1;
  if (r->assumed >= 0) {
    // The front end vouched for every pointer: device memory of `assumed`.
    if (sdev >= 0 && sdev != r->assumed) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument 'stream' is on device %d but the arrays are on device %d", fn, sdev,
                  r->assumed);
    }
    r->path = Path::kDevice;
    r->device = r->assumed;
    return r->guard.enter(fn, r->device);
  }
  int pageable = -1, pinned = -1, device_side = -1, owner = -1;
  PtrInfo infos[4];
  if (count > 4) return fail(CUBRIDGE_ERR_INTERNAL, "%s: too many pointer arguments", fn);
  for (int i = 0; i < count; ++i) {
    PtrInfo& info = infos[i];
    int same = -1;  // an aliased pointer is looked up once
    for (int j = 0; j < i && same < 0; ++j) {
      if (args[j].ptr == args[i].ptr) same = j;
    }
    if (same >= 0) {
      info = infos[same];
    } else {
      CUBRIDGE_TRY(query_pointer(fn, args[i].name, args[i].ptr, &info));
    }
    if (info.loc == Loc::kPageable) {
      if (pageable < 0) pageable = i;
    } else if (info.loc == Loc::kPinned) {
      if (pinned < 0) pinned = i;
    } else if (info.loc == Loc::kDevice || info.loc == Loc::kManaged) {
      if (device_side < 0) device_side = i;
      // Device memory belongs to one device; managed memory to none.
      if (info.loc == Loc::kDevice) {
        if (owner < 0) {
          owner = i;
        } else if (info.device != infos[owner].device) {
          return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                      "%s: arrays on different devices: '%s' is on device %d, '%s' is on "
                      "device %d",
                      fn, args[owner].name, infos[owner].device, args[i].name, info.device);
        }
      }
    }
  }
  if (pageable >= 0 && device_side >= 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument '%s' is pageable host memory but argument '%s' is device memory; "
                "copy one side first (cubridge_memcpy) or use pinned/managed memory",
                fn, args[pageable].name, args[device_side].name);
  }
  if (pageable >= 0) {
    r->path = host_bytes <= kHostInlineBytes ? Path::kCpu : Path::kHost;
    // The host reads and writes pinned memory at once: work queued on
    // `stream` that may still use it comes first, as on the device path.
    if (pinned >= 0) {
      bool recording = false;
      CUBRIDGE_CUDA(fn, stream_recording(stream, &recording));
      if (recording) {
        return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                    "%s: argument '%s' is pageable host memory, so the op runs on the host and "
                    "cannot be recorded into the graph 'stream' is capturing",
                    fn, args[pageable].name);
      }
      DeviceGuard guard;
      CUBRIDGE_TRY(enter_stream_device(fn, stream, &guard));
      CUBRIDGE_CUDA(fn, cudaStreamSynchronize(raw_stream(stream)));
    }
    return CUBRIDGE_OK;
  }
  r->path = Path::kDevice;
  if (owner >= 0) {
    r->device = infos[owner].device;
    if (sdev >= 0 && sdev != r->device) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument 'stream' is on device %d but argument '%s' is on device %d", fn,
                  sdev, args[owner].name, r->device);
    }
  } else if (sdev >= 0) {
    r->device = sdev;  // managed/pinned only: the stream's device
  } else {
    CUBRIDGE_TRY(current_device(fn, &r->device));  // else the caller's
  }
  return r->guard.enter(fn, r->device);
}

}  // namespace cubridge
