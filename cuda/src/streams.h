// The structs behind cubridge_stream and cubridge_event.
#ifndef CUBRIDGE_SRC_STREAMS_H_
#define CUBRIDGE_SRC_STREAMS_H_

#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>
#include <utility>
#include <vector>

#include "cubridge/cubridge.h"
#include "devices.h"

struct cubridge_stream_s {
  cudaStream_t stream;  // nullptr on the CPU backend
  bool owned;           // false for cubridge_stream_from_handle
  int device;           // device the stream belongs to; -1: follows the current
                        // device (legacy/per-thread default handles, CPU backend)
  bool ours;            // created by this library (owned, or a wrapper of such a
                        // stream): the library sees its end (block_cache.h)
};

struct cubridge_event_s {
  std::mutex mu;      // guards the fields: a record may move the event to another device
  cudaEvent_t event;  // nullptr on the CPU backend
  int device;         // device `event` was created on (-1 on the CPU backend)
  bool recorded;
  std::chrono::steady_clock::time_point when;  // CPU backend: time of record
  // The events of the other devices it was recorded on (one each): a call on
  // another thread may still use one. Destroyed with this.
  std::vector<std::pair<int, cudaEvent_t>> others;
};

namespace cubridge {

inline cudaStream_t raw_stream(cubridge_stream s) { return s ? s->stream : nullptr; }

// An event's fields as one record left them.
struct EventState {
  cudaEvent_t event;
  bool recorded;
  std::chrono::steady_clock::time_point when;
};
inline EventState event_state(cubridge_event e) {
  std::lock_guard<std::mutex> lk(e->mu);
  return {e->event, e->recorded, e->when};
}

// The handles CUDA reads as a default stream of the current device: NULL and
// cudaStreamLegacy (the legacy one), cudaStreamPerThread.
inline bool default_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

// Makes the device that a wrapper of a default stream names current for the
// guard's life (cubridge_stream_from_handle_on): CUDA reads that handle on the
// current device. Other streams, and wrappers that follow the current device,
// leave it alone.
cubridge_status enter_stream_device(const char* fn, cubridge_stream s, DeviceGuard* guard);

// The device a CUDA stream belongs to: cudaStreamGetDevice (CUDA >= 12.8), or,
// built with an older runtime (CUDA 12.4), the device of the stream's context
// from the driver.
cudaError_t stream_device(cudaStream_t s, int* device);

// Whether `s` records a graph now (cudaStreamIsCapturing), whoever began the
// recording (cubridge_stream_begin_capture, torch.cuda.graph, CuPy). Default
// streams and the CPU backend never do and cost no CUDA call.
cudaError_t stream_recording(cubridge_stream s, bool* recording);
cudaError_t stream_recording(cudaStream_t raw, bool* recording);

// True, with its device, when `s` is a live stream this library created
// (asks CUDA nothing: safe on a handle destroyed meanwhile).
bool stream_alive(cudaStream_t s, int* device);

// Records `e` on `raw`, a stream of `device` (-1: the current device, whose
// default stream a default handle then names); an event of another device is
// moved to `device` first. The public cubridge_event_record without clearing
// the message.
cubridge_status record_event(const char* fn, cubridge_event e, cudaStream_t raw, int device);

// Holds the stream registry's lock while `s` is a live stream this library
// created (*device: its device): it cannot be destroyed meanwhile. An empty
// lock when it is not.
std::unique_lock<std::mutex> lock_live_stream(cudaStream_t s, int* device);

// cubridge_event_destroy without touching this thread's message.
void destroy_event(cubridge_event e);

// `raw` (of `device`, as above) waits for `e`'s recorded work; nothing when
// it was never recorded, and nothing on the CPU backend.
cubridge_status wait_event(const char* fn, cudaStream_t raw, int device, cubridge_event e);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_STREAMS_H_
