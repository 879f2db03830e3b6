// Blocks kept behind their event, and spare events (array_cache.h).
#include <stdio.h>

#include <mutex>
#include <new>
#include <vector>

#include "array_cache.h"
#include "backend.h"
#include "devices.h"
#include "pool.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

namespace cubridge {
namespace {

struct Kept {
  void* ptr;
  size_t bytes;
  int device;
  cubridge_event event;
};

std::mutex g_mu;
Kept g_kept[kArrayCacheBlocks];  // oldest first
int g_count = 0;

std::mutex g_events_mu;
std::vector<cubridge_event>* g_events = nullptr;  // created on first use

// Takes entry `i` out, keeping the others in order. Caller holds g_mu.
Kept take_out(int i) {
  Kept k = g_kept[i];
  for (int j = i; j + 1 < g_count; ++j) g_kept[j] = g_kept[j + 1];
  --g_count;
  return k;
}

void free_kept(const Kept& k) {
  free_after(CUBRIDGE_MEMORY_DEVICE, k.ptr, k.device, k.event);
  event_give(k.event);
}

}  // namespace

void free_after(int kind, void* ptr, int device, cubridge_event event) {
  const char* fn = "cubridge_array_destroy";
  const int home = kind == CUBRIDGE_MEMORY_DEVICE ? device : -1;
  if (event != nullptr && wait_event(fn, nullptr, home, event) != CUBRIDGE_OK) {
    (void)cudaEventSynchronize(event_state(event).event);
    (void)cudaGetLastError();
  }
  // The default stream of `home` (its legacy one, whichever device is current).
  cubridge_stream_s on_home{nullptr, false, home, false};
  (void)free_memory(fn, kind, ptr, home >= 0 ? &on_home : nullptr);
}

bool array_cache_put(void* ptr, size_t bytes, int device, cubridge_event event) {
  if (bytes == 0 || bytes > kArrayCacheMaxBlock || event == nullptr) return false;
  Kept oldest{};
  bool evict = false;
  {
    // The list is whole before the eviction's free, which may wait.
    std::lock_guard<std::mutex> lk(g_mu);
    evict = g_count == kArrayCacheBlocks;
    if (evict) oldest = take_out(0);
    g_kept[g_count++] = Kept{ptr, bytes, device, event};
  }
  if (evict) free_kept(oldest);
  return true;
}

bool array_cache_take(size_t bytes, int device, cudaStream_t raw, void** ptr,
                      cubridge_event* event) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (int i = g_count - 1; i >= 0; --i) {  // the newest first: likely done
    const Kept& k = g_kept[i];
    if (k.bytes != bytes || k.device != device) continue;
    // A stream that records a graph (torch.cuda.graph's) cannot wait for an
    // event of outside its recording: that would end the recording. The
    // allocation then refuses it, as for any recording stream.
    bool recording = false;
    if (stream_recording(raw, &recording) != cudaSuccess || recording) return false;
    if (wait_event("cubridge_array_create", raw, device, k.event) != CUBRIDGE_OK) {
      clear_error();  // the pool serves it instead
      return false;
    }
    Kept taken = take_out(i);
    *ptr = taken.ptr;
    *event = taken.event;
    return true;
  }
  return false;
}

void array_cache_release(int device) {
  Kept taken[kArrayCacheBlocks];
  int n = 0;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    for (int i = g_count - 1; i >= 0; --i) {
      if (device < 0 || g_kept[i].device == device) taken[n++] = take_out(i);
    }
  }
  for (int i = 0; i < n; ++i) free_kept(taken[i]);
}

size_t array_cache_bytes(int device) {
  std::lock_guard<std::mutex> lk(g_mu);
  size_t bytes = 0;
  for (int i = 0; i < g_count; ++i) {
    if (g_kept[i].device == device) bytes += g_kept[i].bytes;
  }
  return bytes;
}

cubridge_status event_take(const char* fn, cubridge_event* event) {
  {
    std::lock_guard<std::mutex> lk(g_events_mu);
    if (g_events && !g_events->empty()) {
      *event = g_events->back();
      g_events->pop_back();
      return CUBRIDGE_OK;
    }
  }
  cubridge_status st = cubridge_event_create(event);
  if (st != CUBRIDGE_OK) {
    char msg[512];  // cubridge_event_create's message, under this function's name
    snprintf(msg, sizeof msg, "%s", last_error());
    return fail(st, "%s: %s", fn, msg);
  }
  return CUBRIDGE_OK;
}

void event_give(cubridge_event event) {
  if (event == nullptr) return;
  {
    std::lock_guard<std::mutex> lk(g_events_mu);
    try {
      if (!g_events) g_events = new std::vector<cubridge_event>();
      if (g_events->size() < kSpareEvents) {
        g_events->push_back(event);
        return;
      }
    } catch (const std::bad_alloc&) {
    }
  }
  destroy_event(event);
}

void event_spares_release() {
  std::vector<cubridge_event> spares;
  {
    std::lock_guard<std::mutex> lk(g_events_mu);
    if (g_events) spares.swap(*g_events);
  }
  for (cubridge_event e : spares) destroy_event(e);
}

}  // namespace cubridge
