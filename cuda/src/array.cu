// The runtime's arrays (array.h): where their memory comes from and goes to,
// and the ordering of their uses by events.
//
// The state of an array's uses, in short: `pending` and `write` say where its
// last write may still run; `event` completes after every use recorded so
// far (each record first makes its stream wait for the previous record, so
// the event chains them); a use on the default stream records nothing (the
// free runs there after it) but sets `default_use`; a use on a stream of this
// library's records nothing either until another stream needs it (`lazy`).
#include <cuda_runtime_api.h>

#include <new>

#include "array.h"
#include "array_cache.h"
#include "backend.h"
#include "devices.h"
#include "held_frees.h"
#include "pool.h"
#include "status.h"
#include "streams.h"

namespace cubridge {

On on_stream(cubridge_stream s, int home) {
  On o;
  o.raw = raw_stream(s);
  o.ours = s != nullptr && s->ours;
  o.legacy = o.raw == nullptr || o.raw == cudaStreamLegacy;
  if (s != nullptr && s->device >= 0) {
    o.device = s->device;
  } else {
    o.device = default_stream(o.raw) ? home : -1;
  }
  return o;
}

namespace {

bool same(cudaStream_t a, cudaStream_t b) { return stream_key(a) == stream_key(b); }

int home_of(const cubridge_array_s* a) { return home_device(a->kind, a->device); }

// The device whose default stream the array's default-stream uses ran on:
// its own for device memory; for managed and pinned memory, which run where
// the caller is, the device current at the last such use.
int default_device_of(const cubridge_array_s* a) {
  return a->kind == CUBRIDGE_MEMORY_DEVICE ? a->device : a->default_device;
}

On legacy_of(int home) { return On{nullptr, home, false, true}; }

cubridge_status mark(const char* fn, cubridge_array a, const On& s);

// Makes the event cover the uses on the stream of this library's that were not
// recorded yet. A stream closed since has finished its work (destroying a
// created stream waits for it), and with it the write it may have done.
cubridge_status flush(const char* fn, cubridge_array a) {
  cudaStream_t lazy = a->lazy;
  if (lazy == nullptr) return CUBRIDGE_OK;
  a->lazy = nullptr;  // before mark, which records there
  int device = -1;
  std::unique_lock<std::mutex> alive = lock_live_stream(lazy, &device);
  if (!alive.owns_lock()) {
    if (a->pending && same(a->write, lazy)) a->pending = false;
    return CUBRIDGE_OK;
  }
  return mark(fn, a, On{lazy, device, true, false});
}

// `s` waits for every earlier use of the array on other streams, reads too.
cubridge_status after_uses(const char* fn, cubridge_array a, const On& s) {
  if (s.ours && a->lazy != nullptr && same(a->lazy, s.raw)) return CUBRIDGE_OK;  // ordered then
  CUBRIDGE_TRY(flush(fn, a));
  // Uses on the default stream have no event; a stream that CUDA does not
  // order with the default stream (another library's non-blocking one) gets
  // one recorded there first. Created streams and the per-thread default
  // stream are ordered with it by CUDA.
  if (a->default_use && !s.legacy && !s.ours && s.raw != cudaStreamPerThread) {
    CUBRIDGE_TRY(mark(fn, a, legacy_of(default_device_of(a))));
  }
  if (a->event_live && !same(a->event_on, s.raw)) {
    CUBRIDGE_TRY(wait_event(fn, s.raw, s.device, a->event));
  }
  return CUBRIDGE_OK;
}

// Records the event on `s`, after `s` waited for the uses it covered before:
// it then completes after all of them and the work queued on `s` so far.
cubridge_status mark(const char* fn, cubridge_array a, const On& s) {
  CUBRIDGE_TRY(after_uses(fn, a, s));
  if (a->event == nullptr) CUBRIDGE_TRY(event_take(fn, &a->event));
  CUBRIDGE_TRY(record_event(fn, a->event, s.raw, s.device));
  a->event_live = true;
  a->event_on = stream_key(s.raw);
  if (s.legacy) a->default_use = false;  // covered now
  return CUBRIDGE_OK;
}

// Orders the last write before the host (`for_host`: the caller then waits
// for the event) or before `consumer`, which waits for an event.
cubridge_status settle(const char* fn, cubridge_array a, bool for_host, const On& consumer) {
  if (!a->pending) return CUBRIDGE_OK;
  if (!for_host && same(a->write, consumer.raw)) return CUBRIDGE_OK;
  CUBRIDGE_TRY(flush(fn, a));
  if (!a->pending) return CUBRIDGE_OK;  // written on a stream closed since
  // A write on another stream was recorded then; one on the default stream
  // is recorded now, on the default stream of the array's device.
  if (same(a->write, nullptr)) CUBRIDGE_TRY(mark(fn, a, legacy_of(default_device_of(a))));
  if (for_host) return CUBRIDGE_OK;
  return wait_event(fn, consumer.raw, consumer.device, a->event);
}

// Synchronises `s` (a use could not be recorded: the work itself was queued).
cubridge_status wait_for_stream(const char* fn, const On& s) {
  DeviceGuard guard;
  if (default_stream(s.raw)) CUBRIDGE_TRY(guard.enter(fn, s.device));
  CUBRIDGE_CUDA(fn, cudaStreamSynchronize(s.raw));
  return CUBRIDGE_OK;
}

// The block goes where its uses are sure to be done before its next owner's.
void free_block(const char* fn, cubridge_array a) {
  // On the stream of this library's it was last used on: the block cache
  // hands it to that stream's next allocation, and every earlier use was
  // ordered before that stream's (after_uses).
  if (a->lazy != nullptr) {
    int device = -1;
    std::unique_lock<std::mutex> alive = lock_live_stream(a->lazy, &device);
    if (alive.owns_lock()) {
      cubridge_stream_s on{a->lazy, false, device, true};
      (void)free_memory(fn, a->kind, a->ptr, &on);
      return;
    }
  }
  if (a->kind == CUBRIDGE_MEMORY_DEVICE && a->event_live && !a->default_use && !a->exported &&
      array_cache_put(a->ptr, a->bytes, a->device, a->event)) {
    a->event = nullptr;  // the cache's now
    return;
  }
  // The free runs on the default stream of the block's device; managed and
  // pinned memory's default-stream uses may have run on another device's,
  // which the event is made to cover first.
  bool covered = a->event_live && !same(a->event_on, nullptr);
  if (a->kind != CUBRIDGE_MEMORY_DEVICE && a->default_use && a->default_device >= 0 &&
      mark(fn, a, legacy_of(a->default_device)) == CUBRIDGE_OK) {
    covered = true;
  }
  free_after(a->kind, a->ptr, a->device, covered ? a->event : nullptr);
}

cubridge_status check_array(const char* fn, cubridge_array a, int access) {
  if (a == nullptr) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'array' is NULL", fn);
  if (access != CUBRIDGE_ACCESS_READ && access != CUBRIDGE_ACCESS_WRITE) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'access' = %d is not CUBRIDGE_ACCESS_READ or CUBRIDGE_ACCESS_WRITE",
                fn, access);
  }
  return CUBRIDGE_OK;
}

// OK and *skip when nothing is to be ordered on `stream`: the CPU backend,
// or a stream that records a graph (its work runs at each launch).
cubridge_status nothing_to_order(const char* fn, cubridge_stream stream, bool* skip) {
  *skip = true;
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  bool recording = false;
  CUBRIDGE_CUDA(fn, stream_recording(stream, &recording));
  *skip = recording;
  return CUBRIDGE_OK;
}

}  // namespace

cubridge_status array_acquire(const char* fn, cubridge_array a, const On& s, int access) {
  CUBRIDGE_TRY(settle(fn, a, false, s));
  if (access == CUBRIDGE_ACCESS_WRITE) CUBRIDGE_TRY(after_uses(fn, a, s));
  return CUBRIDGE_OK;
}

cubridge_status array_release(const char* fn, cubridge_array a, const On& s, int access) {
  cubridge_status st = CUBRIDGE_OK;
  if (s.legacy) {
    a->default_use = true;  // ordered before the free, which runs there
    if (s.device >= 0) {
      a->default_device = s.device;
    } else if (cudaGetDevice(&a->default_device) != cudaSuccess) {
      (void)cudaGetLastError();
      a->default_device = -1;
    }
  } else if (s.ours) {
    st = after_uses(fn, a, s);
    if (st == CUBRIDGE_OK) a->lazy = s.raw;
  } else {
    st = mark(fn, a, s);
  }
  if (st != CUBRIDGE_OK) {
    CUBRIDGE_TRY(wait_for_stream(fn, s));
    clear_error();
    if (access == CUBRIDGE_ACCESS_WRITE) a->pending = false;
    return CUBRIDGE_OK;
  }
  if (access == CUBRIDGE_ACCESS_WRITE) {
    a->pending = true;
    a->write = stream_key(s.raw);
    ++a->writes;
  }
  return CUBRIDGE_OK;
}

void array_free_now(cubridge_array a) {
  const char* fn = "cubridge_array_destroy";
  if (a->ptr != nullptr) {
    if (on_cpu()) {
      (void)free_memory(fn, a->kind, a->ptr, nullptr);
    } else {
      free_block(fn, a);
    }
  }
  event_give(a->event);
  delete a;
}

}  // namespace cubridge

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_array_create(int kind, size_t bytes, int device,
                                                   cubridge_stream stream, cubridge_array* array) {
  const char* fn = "cubridge_array_create";
  clear_error();
  if (array == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'array' is NULL", fn);
  }
  *array = nullptr;
  CUBRIDGE_TRY(check_alloc_kind(fn, kind));
  if (device < -1) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'device' = %d is not -1 (the stream's or the current) or a device "
                "index",
                fn, device);
  }
  int dev = device;
  if (dev >= 0) {
    CUBRIDGE_TRY(check_device_index(fn, "device", dev));
  } else if (!on_cpu() && stream != nullptr && stream->device >= 0) {
    dev = stream->device;
  } else {
    CUBRIDGE_TRY(resolve_device(fn, "device", -1, &dev));
  }
  cubridge_array a = new (std::nothrow) cubridge_array_s();
  if (a == nullptr) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  a->ptr = nullptr;
  a->bytes = bytes;
  a->kind = kind;
  a->device = dev;
  const On s = on_stream(stream, home_device(kind, dev));
  // On another library's stream, a block kept behind its event: that stream
  // waited for the event, which stands for the allocation's record there.
  if (!on_cpu() && kind == CUBRIDGE_MEMORY_DEVICE && bytes > 0 && !s.ours &&
      !default_stream(s.raw) && array_cache_take(bytes, dev, s.raw, &a->ptr, &a->event)) {
    a->event_live = true;
    a->event_on = stream_key(s.raw);
    a->pending = true;
    a->write = stream_key(s.raw);
    a->writes = 1;
    *array = a;
    return CUBRIDGE_OK;
  }
  cubridge_status st = cubridge_malloc_async(kind, bytes, dev, stream, &a->ptr);
  if (st != CUBRIDGE_OK) {
    delete a;
    return st;
  }
  if (!on_cpu() && a->ptr != nullptr) {
    // Usable at once on `stream`, on others once ordered after it.
    std::lock_guard<std::mutex> lk(a->mu);
    (void)array_release(fn, a, s, CUBRIDGE_ACCESS_WRITE);
  }
  *array = a;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_array_destroy(cubridge_array array) {
  clear_error();
  if (array == nullptr) return CUBRIDGE_OK;
  if (!on_cpu() && hold_free(array)) return CUBRIDGE_OK;
  array_free_now(array);
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_array_get_info(cubridge_array array,
                                                     cubridge_array_info* info) {
  const char* fn = "cubridge_array_get_info";
  clear_error();
  if (array == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'array' is NULL", fn);
  }
  if (info == nullptr || info->struct_size < sizeof(cubridge_array_info)) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'info' is NULL or its struct_size is not "
                "sizeof(cubridge_array_info) = %zu",
                fn, sizeof(cubridge_array_info));
  }
  info->data = array->ptr;
  info->bytes = array->bytes;
  info->kind = array->kind;
  info->device = array->device;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_array_acquire(cubridge_array array, cubridge_stream stream,
                                                    int access) {
  const char* fn = "cubridge_array_acquire";
  clear_error();
  CUBRIDGE_TRY(check_array(fn, array, access));
  bool skip = true;
  CUBRIDGE_TRY(nothing_to_order(fn, stream, &skip));
  if (skip) return CUBRIDGE_OK;
  std::lock_guard<std::mutex> lk(array->mu);
  return array_acquire(fn, array, on_stream(stream, home_of(array)), access);
}

CUBRIDGE_API cubridge_status cubridge_array_release(cubridge_array array, cubridge_stream stream,
                                                    int access) {
  const char* fn = "cubridge_array_release";
  clear_error();
  CUBRIDGE_TRY(check_array(fn, array, access));
  bool skip = true;
  CUBRIDGE_TRY(nothing_to_order(fn, stream, &skip));
  if (skip) return CUBRIDGE_OK;
  std::lock_guard<std::mutex> lk(array->mu);
  return array_release(fn, array, on_stream(stream, home_of(array)), access);
}

CUBRIDGE_API cubridge_status cubridge_array_sync(cubridge_array array, int access) {
  const char* fn = "cubridge_array_sync";
  clear_error();
  CUBRIDGE_TRY(check_array(fn, array, access));
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  cubridge_event wait = nullptr;
  uint64_t writes = 0;
  {
    std::lock_guard<std::mutex> lk(array->mu);
    CUBRIDGE_TRY(settle(fn, array, true, legacy_of(-1)));
    if (array->pending) wait = array->event;
    if (access == CUBRIDGE_ACCESS_WRITE) {
      CUBRIDGE_TRY(flush(fn, array));
      if (array->default_use) {
        CUBRIDGE_TRY(mark(fn, array, legacy_of(default_device_of(array))));
      }
      if (array->event_live) wait = array->event;
    }
    writes = array->writes;
  }
  // Without the array's lock: other threads may queue work on it meanwhile
  // (the event object lives as long as the array).
  if (wait != nullptr) {
    const EventState e = event_state(wait);
    if (e.event != nullptr && e.recorded) CUBRIDGE_CUDA(fn, cudaEventSynchronize(e.event));
  }
  std::lock_guard<std::mutex> lk(array->mu);
  if (array->writes == writes) array->pending = false;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_array_export(cubridge_array array, int* pending) {
  const char* fn = "cubridge_array_export";
  clear_error();
  if (array == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'array' is NULL", fn);
  }
  if (pending != nullptr) *pending = 0;
  std::lock_guard<std::mutex> lk(array->mu);
  array->exported = true;
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  CUBRIDGE_TRY(flush(fn, array));
  // The consumer orders itself after the default stream of the array's
  // device, which waits for a write on another stream (whose handle may not
  // outlive the export) first.
  if (array->pending && !same(array->write, nullptr)) {
    CUBRIDGE_TRY(wait_event(fn, nullptr, default_device_of(array), array->event));
  }
  if (pending != nullptr) *pending = array->pending ? 1 : 0;
  return CUBRIDGE_OK;
}

}  // extern "C"
