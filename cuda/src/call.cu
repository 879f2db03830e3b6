// Calls (runtime.h): the stream a piece of work runs on, its arguments
// checked and ordered after their producers, and afterwards the producers
// ordered after it. Also the stream handshake and the device guard.
#include <new>

#include "array.h"
#include "array_cache.h"
#include "backend.h"
#include "devices.h"
#include "status.h"
#include "streams.h"
#include "view.h"

namespace cubridge {
namespace {

// A producer's stream `p` as the runtime orders on it: a stream of this
// library's with its registered device, a default stream of `home`, another
// library's stream with its own device (`home` when the producer's memory
// says it, else asked of CUDA; the current one while it records a graph).
On producer_on(cudaStream_t p, int home) {
  On o{p, -1, false, p == nullptr || p == cudaStreamLegacy};
  int device = -1;
  if (stream_alive(p, &device)) {
    o.ours = true;
    o.device = device;
  } else if (default_stream(p) || home >= 0) {
    o.device = home;
  } else {
    bool recording = false;
    if (stream_recording(p, &recording) == cudaSuccess && !recording &&
        stream_device(p, &device) == cudaSuccess) {
      o.device = device;
    }
    (void)cudaGetLastError();
  }
  return o;
}

// `consumer` waits for the work queued on `producer` so far: one event,
// recorded there and waited for here (the event is reused at once: a later
// record does not change a wait queued before it).
cubridge_status order(const char* fn, const On& producer, const On& consumer, bool check_capture) {
  if (stream_key(producer.raw) == stream_key(consumer.raw)) return CUBRIDGE_OK;
  if (check_capture && !default_stream(producer.raw)) {
    // Waiting for an event of a recording stream would end the recording.
    bool recording = false;
    CUBRIDGE_CUDA(fn, stream_recording(producer.raw, &recording));
    if (recording) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: the stream that wrote an argument is recording a graph: pass that stream "
                  "as the call's stream (Python: stream=, with out=) to record the work into its "
                  "graph",
                  fn);
    }
  }
  cubridge_event e = nullptr;
  CUBRIDGE_TRY(event_take(fn, &e));
  cubridge_status st = record_event(fn, e, producer.raw, producer.device);
  if (st == CUBRIDGE_OK) st = wait_event(fn, consumer.raw, consumer.device, e);
  event_give(e);
  return st;
}

cubridge_status check_call(const char* fn, const cubridge_call* c) {
  if (c == nullptr || c->struct_size < sizeof(cubridge_call)) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'call' is NULL or its struct_size is not sizeof(cubridge_call) = %zu",
                fn, sizeof(cubridge_call));
  }
  return CUBRIDGE_OK;
}

// Whether the call's stream records a graph (default streams never do).
cubridge_status ask_capturing(const char* fn, cubridge_call* c) {
  c->capturing = 0;
  const cudaStream_t raw = raw_stream(c->stream);
  if (on_cpu() || default_stream(raw)) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  bool recording = false;
  CUBRIDGE_CUDA(fn, stream_recording(raw, &recording));
  c->capturing = recording ? 1 : 0;
  return CUBRIDGE_OK;
}

// No stream was given: the call runs where its first argument was produced,
// as the producer's own ops do; nothing to order.
cubridge_status follow(const char* fn, cubridge_call* c, cudaStream_t p, int home) {
  const On o = producer_on(p, home);
  cubridge_stream w = new (std::nothrow) cubridge_stream_s{p, false, o.device, o.ours};
  if (w == nullptr) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  c->followed = w;
  c->stream = w;
  c->handle = reinterpret_cast<uintptr_t>(p);
  return ask_capturing(fn, c);
}

// The device whose default stream an argument's default-stream work goes to.
int home_of_view(const cubridge_view* v) {
  if (v->array != nullptr) return home_device(v->array->kind, v->array->device);
  return home_device(v->memory, v->device);
}

}  // namespace

}  // namespace cubridge

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_call_begin(cubridge_call* call, cubridge_stream stream,
                                                 int flags) {
  const char* fn = "cubridge_call_begin";
  clear_error();
  CUBRIDGE_TRY(check_call(fn, call));
  call->stream = stream;
  call->handle = reinterpret_cast<uintptr_t>(raw_stream(stream));
  call->capturing = 0;
  call->device = -1;
  call->count = 0;
  call->flags = flags;
  call->followed = nullptr;
  if ((flags & ~CUBRIDGE_CALL_FOLLOW_PRODUCER) != 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'flags' = %d is not 0 or %d", fn,
                flags, CUBRIDGE_CALL_FOLLOW_PRODUCER);
  }
  return ask_capturing(fn, call);
}

CUBRIDGE_API cubridge_status cubridge_call_add(cubridge_call* call, cubridge_view* view,
                                               int access) {
  const char* fn = "cubridge_call_add";
  clear_error();
  CUBRIDGE_TRY(check_call(fn, call));
  if (access != CUBRIDGE_ACCESS_READ && access != CUBRIDGE_ACCESS_WRITE) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'access' = %d is not CUBRIDGE_ACCESS_READ or CUBRIDGE_ACCESS_WRITE",
                fn, access);
  }
  if (call->count >= CUBRIDGE_CALL_MAX_ARGS) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: a call takes at most %d arguments", fn,
                CUBRIDGE_CALL_MAX_ARGS);
  }
  CUBRIDGE_TRY(check_view(view, access));
  const int i = call->count;
  const int home = home_of_view(view);
  call->args[i].view = view;
  call->args[i].access = access;
  call->args[i].producer = 0;
  call->args[i].home = home;
  call->count = i + 1;
  if (on_cpu()) return CUBRIDGE_OK;
  // One device for every argument, device or managed memory: the ops may
  // take it as known (cubridge_assume_device) and skip their lookups.
  const bool device_side =
      (view->memory == CUBRIDGE_MEMORY_DEVICE || view->memory == CUBRIDGE_MEMORY_MANAGED) &&
      view->device >= 0;
  if (i == 0) {
    call->device = device_side ? view->device : -1;
  } else if (!device_side || view->device != call->device) {
    call->device = -1;
  }
  if (call->capturing) return CUBRIDGE_OK;  // the recording runs at its launches
  if (view->array != nullptr) {
    std::lock_guard<std::mutex> lk(view->array->mu);
    return array_acquire(fn, view->array, on_stream(call->stream, home), access);
  }
  if (view->producer == 0) return CUBRIDGE_OK;
  const cudaStream_t p = reinterpret_cast<cudaStream_t>(view->producer);
  if (stream_key(p) == stream_key(raw_stream(call->stream))) return CUBRIDGE_OK;
  if ((call->flags & CUBRIDGE_CALL_FOLLOW_PRODUCER) != 0 && i == 0) {
    return follow(fn, call, p, home);
  }
  call->args[i].producer = view->producer;
  for (int j = 0; j < i; ++j) {  // one event per producer stream, however many arguments it wrote
    if (call->args[j].producer == view->producer) return CUBRIDGE_OK;
  }
  return order(fn, producer_on(p, home), on_stream(call->stream, home), true);
}

CUBRIDGE_API cubridge_status cubridge_call_end(cubridge_call* call, cubridge_status status) {
  const char* fn = "cubridge_call_end";
  // A device hint given inside the call and not taken (its work was a copy or
  // a collective, no op) must not reach the thread's next op: host arrays
  // there would be launched on as device memory.
  (void)take_assumed_device();
  if (call == nullptr) return status;
  if (status == CUBRIDGE_OK && !call->capturing && !on_cpu()) {
    for (int i = 0; i < call->count && status == CUBRIDGE_OK; ++i) {
      cubridge_array a = call->args[i].view->array;
      if (a == nullptr) continue;
      std::lock_guard<std::mutex> lk(a->mu);
      status =
          array_release(fn, a, on_stream(call->stream, call->args[i].home), call->args[i].access);
    }
    // Each producer's stream after the call: its next kernels see what the
    // call wrote, and its caching allocator reuses the memory only after the
    // call. Should that fail, the call's stream is waited for instead.
    for (int i = 0; i < call->count && status == CUBRIDGE_OK; ++i) {
      const uintptr_t p = call->args[i].producer;
      bool seen = p == 0;
      for (int j = 0; j < i && !seen; ++j) seen = call->args[j].producer == p;
      if (seen) continue;
      const int home = call->args[i].home;
      if (order(fn, on_stream(call->stream, home),
                producer_on(reinterpret_cast<cudaStream_t>(p), home), false) != CUBRIDGE_OK) {
        DeviceGuard guard;
        const cudaStream_t raw = raw_stream(call->stream);
        if (default_stream(raw)) (void)guard.enter(fn, home);
        cudaError_t err = cudaStreamSynchronize(raw);
        if (err != cudaSuccess) {
          status = fail_cuda(err, fn, "cudaStreamSynchronize");
        } else {
          clear_error();
        }
        break;
      }
    }
  }
  if (call->followed != nullptr) {
    delete call->followed;
    call->followed = nullptr;
  }
  call->count = 0;
  return status;
}

CUBRIDGE_API cubridge_status cubridge_stream_order(cubridge_stream producer,
                                                   cubridge_stream consumer) {
  const char* fn = "cubridge_stream_order";
  clear_error();
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  return order(fn, on_stream(producer, -1), on_stream(consumer, -1), true);
}

CUBRIDGE_API cubridge_status cubridge_device_enter(int device, int* previous) {
  const char* fn = "cubridge_device_enter";
  clear_error();
  if (previous == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'previous' is NULL", fn);
  }
  *previous = 0;
  if (device != -1) CUBRIDGE_TRY(check_device_index(fn, "device", device));
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  CUBRIDGE_TRY(current_device(fn, previous));
  if (device >= 0 && device != *previous) CUBRIDGE_CUDA(fn, cudaSetDevice(device));
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_device_leave(int previous) {
  const char* fn = "cubridge_device_leave";
  clear_error();
  CUBRIDGE_TRY(check_device_index(fn, "previous", previous));
  if (on_cpu()) return CUBRIDGE_OK;
  int current = 0;
  CUBRIDGE_TRY(current_device(fn, &current));
  if (current != previous) CUBRIDGE_CUDA(fn, cudaSetDevice(previous));
  return CUBRIDGE_OK;
}

}  // extern "C"
