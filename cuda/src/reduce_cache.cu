// Scratch cache for reductions: no cudaMalloc per call once warm, and no more
// than kRedScratchKept entries per device however many streams come and go.
#include <stddef.h>
#include <string.h>

#include <map>
#include <new>
#include <utility>
#include <vector>

#include "reduce_cache.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

namespace cubridge {
namespace {

using Key = std::pair<int, cudaStream_t>;

// Entries are never deleted, only handed from one stream to the next, so a
// pointer to one stays good; whom it serves is checked with its mutex held.
// Leaked on purpose at exit (streams may outlive static destructors).
struct Cache {
  std::map<Key, ReduceScratch*> keyed;
  std::vector<ReduceScratch*> spare;  // entries of destroyed streams
  std::map<int, size_t> per_device;   // entries made, per device
  std::map<int, size_t> with_memory;  // of which hold their memory
};
std::mutex g_mu;
Cache* g_cache = nullptr;
std::atomic<uint64_t> g_tick{0};

// The last entry this thread used: repeated reductions on one stream skip the
// cache's lock and the map.
thread_local ReduceScratch* t_last = nullptr;

// With s->mu held.
bool serves(const ReduceScratch* s, int device, cudaStream_t stream) {
  return s->keyed && s->device == device && s->stream == stream;
}

void mark_used(ReduceScratch* s) {
  s->last_use.store(g_tick.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Unkeys `s` (with g_mu held) if no reduction holds it; true then.
bool take_over(Cache& c, ReduceScratch* s) {
  if (!s->mu.try_lock()) return false;
  c.keyed.erase({s->device, s->stream});
  s->keyed = false;
  s->mu.unlock();
  return true;
}

// An entry of `device` to serve a new stream: a spare one, else past the limit
// the one used longest ago, else nullptr (make one).
ReduceScratch* reuse(Cache& c, int device) {
  for (size_t i = 0; i < c.spare.size(); ++i) {
    ReduceScratch* s = c.spare[i];
    if (s->device != device) continue;
    c.spare.erase(c.spare.begin() + static_cast<std::ptrdiff_t>(i));
    return s;
  }
  if (c.per_device[device] < kRedScratchKept) return nullptr;
  ReduceScratch* oldest = nullptr;
  for (const auto& kv : c.keyed) {
    ReduceScratch* s = kv.second;
    if (s->device == device && (!oldest || s->last_use.load() < oldest->last_use.load())) {
      oldest = s;
    }
  }
  return oldest && take_over(c, oldest) ? oldest : nullptr;
}

// A new entry's memory; its counter is zeroed on the stream it first serves.
cudaError_t make(ReduceScratch* s, const char** what) {
  *what = "cudaMallocHost (reduction result)";
  cudaError_t err = cudaMallocHost(&s->result, 64);
  if (err != cudaSuccess) return err;
  memset(s->result, 0, 64);  // the done flag starts below any seq in use
  err = cudaHostGetDevicePointer(&s->result_dev, s->result, 0);
  if (err != cudaSuccess) return err;
  *what = "cudaMalloc (reduction blocks)";
  return cudaMalloc(&s->blocks, kRedScratchBytes);
}

// Frees the entry's memory (it stays an entry, made again on use).
void free_memory_of(ReduceScratch* s) {
  if (s->result) cudaFreeHost(s->result);
  if (s->blocks) cudaFree(s->blocks);
  (void)cudaGetLastError();
  s->result = s->result_dev = s->blocks = nullptr;
  s->seq = 0;
}

void unmake(ReduceScratch* s) {
  free_memory_of(s);
  delete s;
}

// With g_mu held: the entry for `key`, keyed anew if there was none.
cubridge_status find_or_key(const char* fn, Cache& c, Key key, ReduceScratch** out) {
  auto it = c.keyed.find(key);
  if (it != c.keyed.end()) {
    *out = it->second;
    return CUBRIDGE_OK;
  }
  // The counter is zeroed on `stream` (below): not while it records a graph,
  // where the zeroing would only be recorded. A reduction cannot be recorded
  // anyway: it waits for its result.
  bool recording = false;
  CUBRIDGE_CUDA(fn, stream_recording(key.second, &recording));
  if (recording) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: the stream is recording a graph; a reduction waits for its result and "
                "cannot be recorded",
                fn);
  }
  ReduceScratch* s = reuse(c, key.first);
  const bool fresh = s == nullptr;
  const char* what = "cudaMemsetAsync (reduction counter)";
  cudaError_t err = cudaSuccess;
  if (fresh) s = new ReduceScratch();
  const bool bare = s->blocks == nullptr;  // new, or released by cubridge_shutdown
  if (bare) err = make(s, &what);
  // Zeroed on `stream`, ahead of the first kernel there: cudaMemset would run
  // on the legacy default stream, which a non-blocking stream does not wait
  // for. A handed-on entry's counter is 0 already (each reduction leaves it
  // so before publishing); zeroing it again costs little and trusts nothing.
  if (err == cudaSuccess) err = cudaMemsetAsync(s->blocks, 0, kRedScratchBytes, key.second);
  if (err != cudaSuccess) {
    if (fresh) {
      unmake(s);
    } else {
      if (bare) free_memory_of(s);
      c.spare.push_back(s);
    }
    return fail_cuda(err, fn, what);
  }
  if (fresh) c.per_device[key.first]++;
  if (bare) c.with_memory[key.first]++;
  {
    std::lock_guard<std::mutex> lk(s->mu);  // unkeyed: nobody holds it long
    s->device = key.first;
    s->stream = key.second;
    s->keyed = true;
  }
  c.keyed[key] = s;
  *out = s;
  return CUBRIDGE_OK;
}

}  // namespace

cubridge_status reduce_scratch(const char* fn, cudaStream_t stream, ReduceScratch** out,
                               std::unique_lock<std::mutex>* held, int* device_out) {
  int device = 0;
  CUBRIDGE_CUDA(fn, cudaGetDevice(&device));
  *device_out = device;
  if (ReduceScratch* s = t_last) {
    std::unique_lock<std::mutex> lk(s->mu);
    if (serves(s, device, stream)) {
      mark_used(s);
      *out = s;
      *held = std::move(lk);
      return CUBRIDGE_OK;
    }
  }
  try {
    for (;;) {
      ReduceScratch* s = nullptr;
      {
        std::lock_guard<std::mutex> lk(g_mu);
        if (!g_cache) g_cache = new Cache();
        CUBRIDGE_TRY(find_or_key(fn, *g_cache, {device, stream}, &s));
      }
      std::unique_lock<std::mutex> lk(s->mu);
      if (!serves(s, device, stream)) continue;  // handed on meanwhile: look again
      mark_used(s);
      t_last = s;
      *out = s;
      *held = std::move(lk);
      return CUBRIDGE_OK;
    }
  } catch (const std::bad_alloc&) {
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
}

size_t reduce_scratch_bytes(int device) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_cache) return 0;
  auto it = g_cache->with_memory.find(device);
  return it == g_cache->with_memory.end() ? 0 : it->second * kRedScratchBytes;
}

void reduce_scratch_release() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_cache) return;
  Cache& c = *g_cache;
  try {
    std::vector<ReduceScratch*> keyed;
    for (const auto& kv : c.keyed) keyed.push_back(kv.second);
    for (ReduceScratch* s : keyed) {
      if (take_over(c, s)) c.spare.push_back(s);  // a reduction holds it: left alone
    }
  } catch (const std::bad_alloc&) {
    // Entries not handed to spare keep their memory; released another time.
  }
  for (ReduceScratch* s : c.spare) {
    if (s->blocks == nullptr || !s->mu.try_lock()) continue;
    const int device = s->device;
    free_memory_of(s);
    s->mu.unlock();
    if (c.with_memory[device] > 0) c.with_memory[device]--;
  }
}

void reduce_scratch_forget(cudaStream_t stream) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_cache || !stream) return;
  std::vector<ReduceScratch*> gone;
  try {  // extern "C" callers: nothing may escape
    for (const auto& kv : g_cache->keyed) {
      if (kv.first.second == stream) gone.push_back(kv.second);
    }
    for (ReduceScratch* s : gone) {
      if (take_over(*g_cache, s)) g_cache->spare.push_back(s);
    }
  } catch (const std::bad_alloc&) {
    // Not kept as spare: the entry stays made and unkeyed, counted against its
    // device's limit (harmless, and out of host memory anyway).
  }
}

}  // namespace cubridge
