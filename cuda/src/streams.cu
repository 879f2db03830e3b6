// Streams and events. On the CPU backend every op is synchronous, so streams
// are empty tokens and events record host time.
#include <new>

#include "backend.h"
#include "status.h"
#include "streams.h"

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_stream_create(cubridge_stream* stream) {
  const char* fn = "cubridge_stream_create";
  clear_error();
  if (!stream) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stream' is NULL", fn);
  *stream = nullptr;
  cudaStream_t s = nullptr;
  if (!on_cpu()) {
    CUBRIDGE_TRY(cuda_ready(fn));
    // Blocking (like CuPy's default): work on the legacy default stream, e.g.
    // cubridge_memcpy(..., NULL), stays ordered with work on this stream.
    CUBRIDGE_CUDA(fn, cudaStreamCreateWithFlags(&s, cudaStreamDefault));
  }
  cubridge_stream w = new (std::nothrow) cubridge_stream_s{s, true};
  if (!w) {
    if (s) cudaStreamDestroy(s);
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  *stream = w;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_from_handle(uintptr_t handle,
                                                         cubridge_stream* stream) {
  const char* fn = "cubridge_stream_from_handle";
  clear_error();
  if (!stream) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stream' is NULL", fn);
  *stream = nullptr;
  cudaStream_t s = on_cpu() ? nullptr : reinterpret_cast<cudaStream_t>(handle);
  cubridge_stream w = new (std::nothrow) cubridge_stream_s{s, false};
  if (!w) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  *stream = w;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_destroy(cubridge_stream stream) {
  const char* fn = "cubridge_stream_destroy";
  clear_error();
  if (!stream) return CUBRIDGE_OK;
  cudaStream_t s = stream->stream;
  bool owned = stream->owned;
  delete stream;
  if (owned && s) CUBRIDGE_CUDA(fn, cudaStreamDestroy(s));
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_stream_synchronize(cubridge_stream stream) {
  const char* fn = "cubridge_stream_synchronize";
  clear_error();
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  CUBRIDGE_CUDA(fn, cudaStreamSynchronize(raw_stream(stream)));
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
  if (!on_cpu()) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_CUDA(fn, cudaEventCreate(&e));
  }
  cubridge_event w = new (std::nothrow) cubridge_event_s();
  if (!w) {
    if (e) cudaEventDestroy(e);
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  w->event = e;
  w->recorded = false;
  *event = w;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_destroy(cubridge_event event) {
  const char* fn = "cubridge_event_destroy";
  clear_error();
  if (!event) return CUBRIDGE_OK;
  cudaEvent_t e = event->event;
  delete event;
  if (e) CUBRIDGE_CUDA(fn, cudaEventDestroy(e));
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_record(cubridge_event event, cubridge_stream stream) {
  const char* fn = "cubridge_event_record";
  clear_error();
  if (!event) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'event' is NULL", fn);
  if (event->event) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_CUDA(fn, cudaEventRecord(event->event, raw_stream(stream)));
  } else {
    event->when = std::chrono::steady_clock::now();
  }
  event->recorded = true;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_event_synchronize(cubridge_event event) {
  const char* fn = "cubridge_event_synchronize";
  clear_error();
  if (!event) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'event' is NULL", fn);
  if (event->event) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_CUDA(fn, cudaEventSynchronize(event->event));
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
  if (!start->recorded) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'start' was never recorded", fn);
  }
  if (!end->recorded) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'end' was never recorded", fn);
  }
  if (start->event && end->event) {
    CUBRIDGE_TRY(cuda_ready(fn));
    CUBRIDGE_CUDA(fn, cudaEventElapsedTime(ms, start->event, end->event));
    return CUBRIDGE_OK;
  }
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return CUBRIDGE_OK;
}

}  // extern "C"
