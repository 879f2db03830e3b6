// Streams and events. On the CPU backend every op is synchronous, so streams
// are empty tokens and events record host time.
#include <algorithm>
#include <mutex>
#include <new>
#include <unordered_map>

#if !defined(CUBRIDGE_NO_CUDA) && CUDART_VERSION < 12080
#include <cuda.h>  // driver types only: the functions come from cudaGetDriverEntryPoint
#endif

#include "backend.h"
#include "block_cache.h"
#include "devices.h"
#include "held_frees.h"
#include "reduce_cache.h"
#include "status.h"
#include "streams.h"

using namespace cubridge;

namespace cubridge {

cudaError_t stream_recording(cubridge_stream s, bool* recording) {
  return stream_recording(raw_stream(s), recording);
}

cudaError_t stream_recording(cudaStream_t raw, bool* recording) {
  *recording = false;
#if defined(CUBRIDGE_NO_CUDA)
  (void)raw;
  return cudaSuccess;
#else
  if (raw == nullptr || raw == cudaStreamLegacy) return cudaSuccess;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(raw, &status);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  *recording = status != cudaStreamCaptureStatusNone;
  return cudaSuccess;
#endif
}

cudaError_t stream_device(cudaStream_t s, int* device) {
#if defined(CUBRIDGE_NO_CUDA) || CUDART_VERSION >= 12080
  return cudaStreamGetDevice(s, device);
#else
  // The stream's context, made current for a moment, names its device.
  using GetCtx = CUresult (*)(CUstream, CUcontext*);
  using PushCtx = CUresult (*)(CUcontext);
  using PopCtx = CUresult (*)(CUcontext*);
  using CtxDevice = CUresult (*)(CUdevice*);
  static void* fns[4] = {};
  static const cudaError_t found = [] {
    const char* names[4] = {"cuStreamGetCtx", "cuCtxPushCurrent", "cuCtxPopCurrent",
                            "cuCtxGetDevice"};
    for (int i = 0; i < 4; ++i) {
      cudaError_t e = cudaGetDriverEntryPoint(names[i], &fns[i], cudaEnableDefault, nullptr);
      if (e != cudaSuccess) return e;
      if (!fns[i]) return cudaErrorSymbolNotFound;
    }
    return cudaSuccess;
  }();
  if (found != cudaSuccess) return found;
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCtx>(fns[0])(reinterpret_cast<CUstream>(s), &ctx) != CUDA_SUCCESS) {
    return cudaErrorInvalidResourceHandle;
  }
  if (reinterpret_cast<PushCtx>(fns[1])(ctx) != CUDA_SUCCESS) return cudaErrorDeviceUninitialized;
  CUdevice dev = -1;
  CUresult r = reinterpret_cast<CtxDevice>(fns[3])(&dev);
  CUcontext popped = nullptr;
  reinterpret_cast<PopCtx>(fns[2])(&popped);
  if (r != CUDA_SUCCESS) return cudaErrorDeviceUninitialized;
  *device = static_cast<int>(dev);
  return cudaSuccess;
#endif
}

cubridge_status enter_stream_device(const char* fn, cubridge_stream s, DeviceGuard* guard) {
  if (s == nullptr || s->device < 0 || !default_stream(s->stream)) return CUBRIDGE_OK;
  return guard->enter(fn, s->device);
}

cubridge_status wait_event(const char* fn, cudaStream_t raw, int device, cubridge_event event) {
  const EventState e = event_state(event);
  if (on_cpu() || !e.event) return CUBRIDGE_OK;  // CPU: every op already finished
  CUBRIDGE_TRY(cuda_ready(fn));
  // An event never recorded has no work to wait for (as in CUDA).
  if (!e.recorded) return CUBRIDGE_OK;
  DeviceGuard guard;
  if (default_stream(raw)) CUBRIDGE_TRY(guard.enter(fn, device));
  CUBRIDGE_CUDA(fn, cudaStreamWaitEvent(raw, e.event, 0));
  return CUBRIDGE_OK;
}

void destroy_event(cubridge_event event) {
  if (!event) return;
  cudaEvent_t e = event->event;
  for (const auto& other : event->others) cudaEventDestroy(other.second);
  delete event;
  if (e && cudaEventDestroy(e) != cudaSuccess) (void)cudaGetLastError();
}

cubridge_status record_event(const char* fn, cubridge_event event, cudaStream_t raw, int device) {
  std::lock_guard<std::mutex> lk(event->mu);
  if (event->event) {
    CUBRIDGE_TRY(cuda_ready(fn));
    // An event records on a stream of its own device: move it to the
    // stream's device first (its earlier record is then forgotten).
    int dev = device;
    if (dev < 0) CUBRIDGE_TRY(current_device(fn, &dev));
    DeviceGuard guard;
    if (default_stream(raw)) CUBRIDGE_TRY(guard.enter(fn, device));
    if (dev != event->device) {
      // The event of `dev` from an earlier move, else a new one; the one left
      // stays (a call on another thread may still use it).
      CUBRIDGE_TRY(guard.enter(fn, dev));
      auto& others = event->others;
      try {
        others.reserve(others.size() + 1);  // the emplace below cannot fail then
      } catch (const std::bad_alloc&) {
        return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
      }
      auto it = std::find_if(others.begin(), others.end(),
                             [dev](const auto& o) { return o.first == dev; });
      cudaEvent_t e = nullptr;
      if (it != others.end()) {
        e = it->second;
        others.erase(it);
      } else {
        CUBRIDGE_CUDA(fn, cudaEventCreate(&e));
      }
      others.emplace_back(event->device, event->event);
      event->event = e;
      event->device = dev;
      event->recorded = false;
    }
    CUBRIDGE_CUDA(fn, cudaEventRecord(event->event, raw));
  } else {
    event->when = std::chrono::steady_clock::now();
  }
  event->recorded = true;
  return CUBRIDGE_OK;
}

namespace {

// The CUDA streams this library created and has not destroyed, with their
// devices: a wrapper of one (cubridge_stream_from_handle, how Python passes
// cubridge.Stream) asks CUDA nothing and uses the block cache like the stream
// itself, and cubridge_stream_lookup can tell a live one from a dead handle.
struct StreamRegistry {
  std::mutex mu;
  std::unordered_map<cudaStream_t, int> devices;
};

// Function-local, so that this file needs no dynamic initializer: its name
// would carry nvcc's random temporary file name and differ between builds.
StreamRegistry& registry() {
  static auto* r = new StreamRegistry();  // leaked on purpose: used until exit
  return *r;
}

// False when out of host memory.
bool register_stream(cudaStream_t s, int device) {
  StreamRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  try {
    r.devices[s] = device;
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

void unregister_stream(cudaStream_t s) {
  StreamRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.devices.erase(s);
}

// True, with its device, when `s` is a live stream this library created.
bool registered_stream(cudaStream_t s, int* device) {
  if (!s) return false;
  StreamRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.devices.find(s);
  if (it == r.devices.end()) return false;
  *device = it->second;
  return true;
}

}  // namespace

bool stream_alive(cudaStream_t s, int* device) { return registered_stream(s, device); }

std::unique_lock<std::mutex> lock_live_stream(cudaStream_t s, int* device) {
  if (!s) return {};
  StreamRegistry& r = registry();
  std::unique_lock<std::mutex> lock(r.mu);
  auto it = r.devices.find(s);
  if (it == r.devices.end()) return {};
  *device = it->second;
  return lock;
}

}  // namespace cubridge

extern "C" {

namespace {

cubridge_status create_stream(const char* fn, int device, cubridge_stream* stream) {
  if (!stream) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stream' is NULL", fn);
  *stream = nullptr;
  cudaStream_t s = nullptr;
  int dev = -1;
  if (!on_cpu()) {
    CUBRIDGE_TRY(resolve_device(fn, "device", device, &dev));
    DeviceGuard guard;
    CUBRIDGE_TRY(guard.enter(fn, dev));
    // Blocking (like CuPy's default): work on the legacy default stream, e.g.
    // cubridge_memcpy(..., NULL), stays ordered with work on this stream.
    CUBRIDGE_CUDA(fn, cudaStreamCreateWithFlags(&s, cudaStreamDefault));
  } else if (device != -1) {
    CUBRIDGE_TRY(check_device_index(fn, "device", device));
  }
  cubridge_stream w = new (std::nothrow) cubridge_stream_s{s, true, dev, true};
  if (!w || (s && !register_stream(s, dev))) {
    delete w;
    if (s) cudaStreamDestroy(s);
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  *stream = w;
  return CUBRIDGE_OK;
}

// The device of a caller's stream (not a default one), or -1 (follow the
// current device) while it records a graph: asking for its device is refused
// then, and would end the recording.
cubridge_status foreign_stream_device(const char* fn, cubridge_stream w, int* device) {
  *device = -1;
  cudaStream_t s = w->stream;
  CUBRIDGE_TRY(cuda_ready(fn));
  bool recording = false;
  CUBRIDGE_CUDA(fn, stream_recording(w, &recording));
  if (!recording) CUBRIDGE_CUDA(fn, stream_device(s, device));
  return CUBRIDGE_OK;
}

// A wrapper of `handle` (cubridge_stream_from_handle[_on]): a stream of this
// library's carries its registered device, a default-stream handle `device`
// (-1: follow the current device), any other the device CUDA names.
cubridge_status wrap_handle(const char* fn, uintptr_t handle, int device, cubridge_stream* stream) {
  if (!stream) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stream' is NULL", fn);
  *stream = nullptr;
  cudaStream_t s = on_cpu() ? nullptr : reinterpret_cast<cudaStream_t>(handle);
  int dev = -1;
  const bool ours = registered_stream(s, &dev);
  cubridge_stream w = new (std::nothrow) cubridge_stream_s{s, false, dev, ours};
  if (!w) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  if (!on_cpu() && !ours) {
    if (default_stream(s)) {
      w->device = device;
    } else if (cubridge_status st = foreign_stream_device(fn, w, &w->device); st != CUBRIDGE_OK) {
      delete w;
      return st;
    }
  }
  *stream = w;
  return CUBRIDGE_OK;
}

}  // namespace

CUBRIDGE_API cubridge_status cubridge_stream_create(cubridge_stream* stream) {
  clear_error();
  return create_stream("cubridge_stream_create", -1, stream);
}

CUBRIDGE_API cubridge_status cubridge_stream_create_on(int device, cubridge_stream* stream) {
  clear_error();
  return create_stream("cubridge_stream_create_on", device, stream);
}

CUBRIDGE_API cubridge_status cubridge_stream_device(cubridge_stream stream, int* device) {
  const char* fn = "cubridge_stream_device";
  clear_error();
  if (!device) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'device' is NULL", fn);
  *device = 0;
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  if (stream && stream->device >= 0) {
    *device = stream->device;
    return CUBRIDGE_OK;
  }
  return current_device(fn, device);
}

CUBRIDGE_API cubridge_status cubridge_stream_handle(cubridge_stream stream, uintptr_t* handle) {
  const char* fn = "cubridge_stream_handle";
  clear_error();
  if (!handle) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'handle' is NULL", fn);
  *handle = reinterpret_cast<uintptr_t>(raw_stream(stream));
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_lookup(uintptr_t handle, cubridge_stream* stream) {
  const char* fn = "cubridge_stream_lookup";
  clear_error();
  if (!stream) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stream' is NULL", fn);
  *stream = nullptr;
  cudaStream_t s = reinterpret_cast<cudaStream_t>(handle);
  int device = -1;
  if (on_cpu() || !registered_stream(s, &device)) return CUBRIDGE_OK;
  *stream = new (std::nothrow) cubridge_stream_s{s, false, device, true};
  if (!*stream) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_is_ours(cubridge_stream stream, int* ours) {
  const char* fn = "cubridge_stream_is_ours";
  clear_error();
  if (!ours) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'ours' is NULL", fn);
  *ours = stream != nullptr && stream->ours ? 1 : 0;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_wait_event(cubridge_stream stream,
                                                        cubridge_event event) {
  const char* fn = "cubridge_stream_wait_event";
  clear_error();
  if (!event) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'event' is NULL", fn);
  return wait_event(fn, raw_stream(stream), stream ? stream->device : -1, event);
}

CUBRIDGE_API cubridge_status cubridge_stream_from_handle(uintptr_t handle,
                                                         cubridge_stream* stream) {
  clear_error();
  return wrap_handle("cubridge_stream_from_handle", handle, -1, stream);
}

CUBRIDGE_API cubridge_status cubridge_stream_from_handle_on(uintptr_t handle, int device,
                                                            cubridge_stream* stream) {
  const char* fn = "cubridge_stream_from_handle_on";
  clear_error();
  if (device != -1) CUBRIDGE_TRY(check_device_index(fn, "device", device));
  return wrap_handle(fn, handle, device, stream);
}

CUBRIDGE_API cubridge_status cubridge_stream_destroy(cubridge_stream stream) {
  const char* fn = "cubridge_stream_destroy";
  clear_error();
  if (!stream) return CUBRIDGE_OK;
  cudaStream_t s = stream->stream;
  bool owned = stream->owned;
  // A created stream's work finishes first: runtime arrays last used there
  // have no event for it, and count on a stream that is gone being done.
  cudaError_t synced = cudaSuccess;
  bool recording = false;
  if (owned && s && stream_recording(s, &recording) == cudaSuccess && recording) {
    // Destroyed while it records (a Go Capture whose callback closed it): the
    // recording is ended and dropped, and the frees held for it go ahead.
#if !defined(CUBRIDGE_NO_CUDA)
    cudaGraph_t g = nullptr;
    if (cudaStreamEndCapture(s, &g) == cudaSuccess && g) cudaGraphDestroy(g);
    (void)cudaGetLastError();
#endif
    capture_ends(s);
    recording = false;
  }
  if (owned && s && !recording) synced = cudaStreamSynchronize(s);
  cache_release_stream(stream);  // its cached blocks, while it can order their free
  delete stream;
  if (owned && s) {
    reduce_scratch_forget(s);  // for the next stream of its device
    unregister_stream(s);
    CUBRIDGE_CUDA(fn, cudaStreamDestroy(s));
    CUBRIDGE_CUDA(fn, synced);
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_synchronize(cubridge_stream stream) {
  const char* fn = "cubridge_stream_synchronize";
  clear_error();
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  DeviceGuard guard;
  CUBRIDGE_TRY(enter_stream_device(fn, stream, &guard));
  CUBRIDGE_CUDA(fn, cudaStreamSynchronize(raw_stream(stream)));
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_query(cubridge_stream stream, int* done) {
  const char* fn = "cubridge_stream_query";
  clear_error();
  if (!done) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'done' is NULL", fn);
  *done = 1;
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  DeviceGuard guard;
  CUBRIDGE_TRY(enter_stream_device(fn, stream, &guard));
  cudaError_t e = cudaStreamQuery(raw_stream(stream));
  if (e == cudaErrorNotReady) {
    *done = 0;
    return CUBRIDGE_OK;
  }
  CUBRIDGE_CUDA(fn, e);
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_device_synchronize(void) {
  const char* fn = "cubridge_device_synchronize";
  clear_error();
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  CUBRIDGE_CUDA(fn, cudaDeviceSynchronize());
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_create(cubridge_event* event) {
  const char* fn = "cubridge_event_create";
  clear_error();
  if (!event) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'event' is NULL", fn);
  *event = nullptr;
  cudaEvent_t e = nullptr;
  int dev = -1;
  if (!on_cpu()) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_TRY(current_device(fn, &dev));
    CUBRIDGE_CUDA(fn, cudaEventCreate(&e));
  }
  cubridge_event w = new (std::nothrow) cubridge_event_s();
  if (!w) {
    if (e) cudaEventDestroy(e);
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  w->event = e;
  w->device = dev;
  w->recorded = false;
  *event = w;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_destroy(cubridge_event event) {
  clear_error();
  destroy_event(event);
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_record(cubridge_event event, cubridge_stream stream) {
  const char* fn = "cubridge_event_record";
  clear_error();
  if (!event) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'event' is NULL", fn);
  return record_event(fn, event, raw_stream(stream), stream ? stream->device : -1);
}

CUBRIDGE_API cubridge_status cubridge_event_synchronize(cubridge_event event) {
  const char* fn = "cubridge_event_synchronize";
  clear_error();
  if (!event) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'event' is NULL", fn);
  const EventState e = event_state(event);
  if (e.event) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_CUDA(fn, cudaEventSynchronize(e.event));
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_elapsed_ms(cubridge_event start, cubridge_event end,
                                                       float* ms) {
  const char* fn = "cubridge_event_elapsed_ms";
  clear_error();
  if (!start) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'start' is NULL", fn);
  if (!end) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'end' is NULL", fn);
  if (!ms) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'ms' is NULL", fn);
  const EventState a = event_state(start), b = event_state(end);
  if (!a.recorded) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'start' was never recorded", fn);
  }
  if (!b.recorded) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'end' was never recorded", fn);
  }
  if (a.event && b.event) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_CUDA(fn, cudaEventElapsedTime(ms, a.event, b.event));
    return CUBRIDGE_OK;
  }
  *ms = std::chrono::duration<float, std::milli>(b.when - a.when).count();
  return CUBRIDGE_OK;
}

}  // extern "C"
