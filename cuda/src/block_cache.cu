// The device block cache (see block_cache.h).
#include <cuda_runtime_api.h>
#include <stdint.h>

#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

#include "block_cache.h"
#include "devices.h"
#include "streams.h"
#include "tuning.h"

namespace cubridge {
namespace {

struct Key {
  cudaStream_t stream;
  size_t bytes;  // the size class
  bool operator==(const Key& o) const { return stream == o.stream && bytes == o.bytes; }
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<uintptr_t>()(reinterpret_cast<uintptr_t>(k.stream)) ^ (k.bytes * 0x9E3779B1u);
  }
};

using Blocks = std::unordered_map<Key, std::vector<void*>, KeyHash>;

struct DeviceCache {
  std::mutex mu;
  Blocks* free = nullptr;  // created on first use, leaked on purpose (used until exit)
  size_t bytes = 0;
};

DeviceCache g_cache[kMaxDevices];

DeviceCache* cache_of(int device) {
  return device >= 0 && device < kMaxDevices ? &g_cache[device] : nullptr;
}

// Frees `blocks` (all kept for `device`) to the pool; the legacy stream's ones
// with `device` current.
void free_blocks(int device, const std::vector<std::pair<cudaStream_t, void*>>& blocks) {
  if (blocks.empty()) return;
  DeviceGuard guard;
  const bool entered = guard.enter("cache_release", device) == CUBRIDGE_OK;
  for (const auto& b : blocks) {
    if (b.first == nullptr && !entered) continue;  // cannot name the stream: the pool keeps it
    // cudaFree when that fails (a device without memory pools, a stream
    // destroyed meanwhile): it waits for the device's work first.
    if (cudaFreeAsync(b.second, b.first) != cudaSuccess) {
      (void)cudaGetLastError();
      if (cudaFree(b.second) != cudaSuccess) (void)cudaGetLastError();
    }
  }
}

// Moves the blocks of `c` that `pick` selects into `out`, or none when `out`
// cannot grow. Caller holds c->mu.
template <class Pred>
void take_out(DeviceCache* c, Pred pick, std::vector<std::pair<cudaStream_t, void*>>* out) {
  if (!c->free) return;
  size_t count = 0;
  for (const auto& [key, v] : *c->free) {
    if (pick(key)) count += v.size();
  }
  try {
    out->reserve(out->size() + count);
  } catch (const std::bad_alloc&) {
    return;  // they stay cached, released another time
  }
  for (auto it = c->free->begin(); it != c->free->end();) {
    if (!pick(it->first)) {
      ++it;
      continue;
    }
    for (void* p : it->second) out->emplace_back(it->first.stream, p);
    c->bytes -= it->first.bytes * it->second.size();
    it = c->free->erase(it);  // the map keeps only the classes it holds blocks of
  }
}

// Frees the cached blocks of `device` that `pick` selects to the pool.
template <class Pred>
void release_where(int device, Pred pick) {
  DeviceCache* c = cache_of(device);
  if (!c) return;
  std::vector<std::pair<cudaStream_t, void*>> blocks;
  {
    std::lock_guard<std::mutex> lk(c->mu);
    take_out(c, pick, &blocks);
  }
  free_blocks(device, blocks);
}

}  // namespace

size_t cache_block_bytes(size_t bytes) {
  if (bytes == 0 || bytes > kBlockCacheMaxBlock) return bytes;
  const size_t step = bytes <= kBlockCacheSmall ? kBlockCacheSmallStep : kBlockCacheLargeStep;
  return (bytes + step - 1) / step * step;
}

bool cache_stream(cubridge_stream stream, size_t bytes, cudaStream_t* key) {
  if (bytes == 0 || bytes > kBlockCacheMaxBlock) return false;
  if (stream == nullptr || stream->stream == nullptr || stream->stream == cudaStreamLegacy) {
    *key = nullptr;  // the device's legacy default stream: lives as long as the device
    return true;
  }
  if (!stream->ours) return false;  // a caller's stream: its end is not seen here
  bool recording = false;
  if (stream_recording(stream, &recording) != cudaSuccess || recording) return false;
  *key = stream->stream;
  return true;
}

bool cache_take(int device, cudaStream_t key, size_t bytes, void** p) {
  DeviceCache* c = cache_of(device);
  if (!c) return false;
  const Key k{key, cache_block_bytes(bytes)};
  std::lock_guard<std::mutex> lk(c->mu);
  if (!c->free) return false;
  auto it = c->free->find(k);
  if (it == c->free->end() || it->second.empty()) return false;
  *p = it->second.back();
  it->second.pop_back();
  c->bytes -= k.bytes;
  return true;
}

bool cache_put(int device, cudaStream_t key, size_t bytes, void* p) {
  DeviceCache* c = cache_of(device);
  if (!c) return false;
  const Key k{key, cache_block_bytes(bytes)};
  std::vector<std::pair<cudaStream_t, void*>> evicted;
  bool kept = false;
  {
    std::lock_guard<std::mutex> lk(c->mu);
    // Full: everything cached goes back to the pool and the cache starts over,
    // so sizes a program no longer uses do not hold the room.
    if (c->bytes + k.bytes > kBlockCacheMax) {
      take_out(c, [](const Key&) { return true; }, &evicted);
    }
    try {
      if (!c->free) c->free = new Blocks();
      (*c->free)[k].push_back(p);
      c->bytes += k.bytes;
      kept = true;
    } catch (const std::bad_alloc&) {
    }
  }
  free_blocks(device, evicted);
  return kept;
}

void cache_release_device(int device) {
  release_where(device, [](const Key&) { return true; });
}

void cache_release(int device, cudaStream_t key) {
  release_where(device, [key](const Key& k) { return k.stream == key; });
}

size_t cache_bytes(int device) {
  DeviceCache* c = cache_of(device);
  if (!c) return 0;
  std::lock_guard<std::mutex> lk(c->mu);
  return c->bytes;
}

void cache_release_stream(cubridge_stream stream) {
  if (!stream || !stream->owned || !stream->stream) return;
  for (int d = 0; d < kMaxDevices; ++d) {
    if (stream->device < 0 || d == stream->device) cache_release(d, stream->stream);
  }
}

}  // namespace cubridge
