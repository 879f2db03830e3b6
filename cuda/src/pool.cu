// Caching allocators (see pool.h) and the stream-ordered memory ABI.
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <mutex>
#include <new>
#include <vector>

#include "array_cache.h"
#include "backend.h"
#include "block_cache.h"
#include "devices.h"
#include "host_alloc.h"
#include "host_pipeline.h"
#include "pointers.h"
#include "pool.h"
#include "reduce_cache.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

namespace cubridge {
namespace {

// ---- device pools ---------------------------------------------------------

struct DevicePool {
  std::once_flag once;
  std::atomic<bool> used{false};  // pool_of was called (the device has a context)
  cudaMemPool_t pool = nullptr;   // nullptr: pools unsupported, plain cudaMalloc
  cudaError_t init_error = cudaSuccess;
};

DevicePool g_pools[kMaxDevices];

// Counters of the allocations made for users (cubridge_malloc_async).
struct Counters {
  std::atomic<uint64_t> in_use{0}, peak{0}, allocs{0}, frees{0};
};
Counters g_counters[kMaxDevices];

void count_alloc(int device, size_t bytes) {
  if (device < 0 || device >= kMaxDevices) return;
  Counters& c = g_counters[device];
  uint64_t now = c.in_use.fetch_add(bytes) + bytes;
  uint64_t peak = c.peak.load();
  while (now > peak && !c.peak.compare_exchange_weak(peak, now)) {
  }
  c.allocs.fetch_add(1);
}

void count_free(int device, size_t bytes) {
  if (device < 0 || device >= kMaxDevices) return;
  g_counters[device].in_use.fetch_sub(bytes);
  g_counters[device].frees.fetch_add(1);
}

void init_pool(DevicePool* dp, int device) {
  int supported = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess ||
      !supported) {
    (void)cudaGetLastError();
    return;  // plain cudaMalloc/cudaFree
  }
  cudaMemPoolProps props;
  memset(&props, 0, sizeof(props));
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  cudaError_t err = cudaMemPoolCreate(&pool, &props);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    dp->init_error = err;
    return;
  }
  // Keep freed memory cached (never trimmed at synchronisations); it goes back
  // to the driver under memory pressure and in cubridge_empty_cache.
  uint64_t threshold = UINT64_MAX;
  if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  dp->pool = pool;
}

DevicePool* pool_of(int device) {
  if (device < 0 || device >= kMaxDevices) return nullptr;
  DevicePool* dp = &g_pools[device];
  std::call_once(dp->once, init_pool, dp, device);
  dp->used.store(true, std::memory_order_relaxed);
  return dp;
}

// Waits for `device`'s work (so pending frees complete) and returns its
// pool's unused memory to the driver. Runs with `device` current.
void trim_device(int device) {
  DevicePool* dp = pool_of(device);
  if (!dp || !dp->pool) return;
  if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
  if (cudaMemPoolTrimTo(dp->pool, 0) != cudaSuccess) (void)cudaGetLastError();
}

void trim_pinned(bool wait);

// cudaMallocFromPoolAsync on the current device `device`; on out-of-memory
// releases the caches and tries once more.
cubridge_status device_alloc(const char* fn, int device, size_t bytes, cudaStream_t stream,
                             void** p) {
  DevicePool* dp = pool_of(device);
  if (!dp)
    return fail(CUBRIDGE_ERR_INTERNAL, "%s: device %d beyond the library's tables", fn, device);
  for (int attempt = 0;; ++attempt) {
    cudaError_t err =
        dp->pool ? cudaMallocFromPoolAsync(p, bytes, dp->pool, stream) : cudaMalloc(p, bytes);
    if (err == cudaSuccess) return CUBRIDGE_OK;
    if (err != cudaErrorMemoryAllocation || attempt > 0) {
      cubridge_status st = fail_cuda(err, fn, dp->pool ? "cudaMallocFromPoolAsync" : "cudaMalloc");
      if (st == CUBRIDGE_ERR_OUT_OF_MEMORY) {
        fail(st,
             "%s: out of device memory on device %d allocating %zu bytes (cached blocks "
             "were released first)",
             fn, device, bytes);
      }
      return st;
    }
    (void)cudaGetLastError();
    release_cached(device);
  }
}

// ---- pinned cache -----------------------------------------------------------

struct PinnedBlock {
  void* p;
  size_t cap;
  cudaEvent_t ready;  // recorded where it was freed; nullptr: ready now
};

std::mutex g_pin_mu;
std::vector<PinnedBlock>* g_pin_free = nullptr;  // leaked on purpose
size_t g_pin_cached = 0;

size_t pinned_class(size_t bytes) {
  if (bytes <= (size_t(4) << 20)) {
    size_t c = 512;
    while (c < bytes) c <<= 1;
    return c;
  }
  const size_t step = size_t(2) << 20;
  return (bytes + step - 1) / step * step;
}

bool event_done(cudaEvent_t e) {
  if (!e) return true;
  cudaError_t err = cudaEventQuery(e);
  if (err == cudaSuccess) return true;
  if (err != cudaErrorNotReady) (void)cudaGetLastError();
  return false;
}

void release_block(const PinnedBlock& b, bool wait) {
  if (b.ready) {
    if (wait) (void)cudaEventSynchronize(b.ready);
    cudaEventDestroy(b.ready);
  }
  cudaFreeHost(b.p);
  (void)cudaGetLastError();
}

// Frees cached pinned blocks (all of them when `wait`, else those ready).
void trim_pinned(bool wait) {
  std::vector<PinnedBlock> drop;
  {
    std::lock_guard<std::mutex> lk(g_pin_mu);
    if (!g_pin_free) return;
    auto& v = *g_pin_free;
    for (size_t i = 0; i < v.size();) {
      if (wait || event_done(v[i].ready)) {
        g_pin_cached -= v[i].cap;
        try {
          drop.push_back(v[i]);
        } catch (...) {
          ++i;
          continue;
        }
        v[i] = v.back();
        v.pop_back();
      } else {
        ++i;
      }
    }
  }
  for (const PinnedBlock& b : drop) release_block(b, true);
}

}  // namespace

void release_cached(int device) {
  array_cache_release(device);
  cache_release_device(device);
  trim_staging(device);
  trim_device(device);
  trim_pinned(false);
}

cubridge_status scratch_alloc(const char* fn, size_t bytes, cudaStream_t stream, void** p) {
  int device = 0;
  CUBRIDGE_TRY(current_device(fn, &device));
  return device_alloc(fn, device, bytes, stream, p);
}

void scratch_free(void* p, cudaStream_t stream) {
  if (!p) return;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  DevicePool* dp = pool_of(device);
  cudaError_t err = dp && dp->pool ? cudaFreeAsync(p, stream) : cudaFree(p);
  if (err != cudaSuccess) (void)cudaGetLastError();
}

cubridge_status pinned_alloc(const char* fn, size_t bytes, void** p) {
  const size_t cap = pinned_class(bytes);
  {
    std::lock_guard<std::mutex> lk(g_pin_mu);
    if (g_pin_free) {
      auto& v = *g_pin_free;
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].cap == cap && event_done(v[i].ready)) {
          if (v[i].ready) cudaEventDestroy(v[i].ready);
          *p = v[i].p;
          g_pin_cached -= cap;
          v[i] = v.back();
          v.pop_back();
          return CUBRIDGE_OK;
        }
      }
    }
  }
  cudaError_t err = cudaMallocHost(p, cap);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    // Idle staging sets hold pinned chunks outside the cache: hand them to it
    // first (the current device's; only those can be destroyed here).
    int device = 0;
    if (cudaGetDevice(&device) == cudaSuccess) trim_staging(device);
    trim_pinned(true);
    err = cudaMallocHost(p, cap);
  }
  if (err != cudaSuccess) {
    cubridge_status st = fail_cuda(err, fn, "cudaMallocHost");
    if (st == CUBRIDGE_ERR_OUT_OF_MEMORY) {
      fail(st, "%s: out of pinned host memory allocating %zu bytes", fn, bytes);
    }
    return st;
  }
  return CUBRIDGE_OK;
}

cubridge_status pinned_free(const char* fn, void* p, size_t bytes, cudaStream_t stream) {
  PinnedBlock b{p, pinned_class(bytes), nullptr};
  cudaError_t err = cudaEventCreateWithFlags(&b.ready, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventRecord(b.ready, stream);
  if (err != cudaSuccess) {
    // Cannot order the reuse: wait for the stream, then cache it as ready.
    (void)cudaGetLastError();
    if (b.ready) cudaEventDestroy(b.ready);
    b.ready = nullptr;
    CUBRIDGE_CUDA(fn, cudaStreamSynchronize(stream));
  }
  {
    std::lock_guard<std::mutex> lk(g_pin_mu);
    if (g_pin_cached + b.cap <= kPinnedCacheMax) {
      try {
        if (!g_pin_free) g_pin_free = new std::vector<PinnedBlock>();
        g_pin_free->push_back(b);
        g_pin_cached += b.cap;
        return CUBRIDGE_OK;
      } catch (...) {
      }
    }
  }
  release_block(b, true);
  return CUBRIDGE_OK;
}

// The device whose default stream a free on `stream` is ordered on, -1 when
// `stream` is no default stream: NULL and handle 0 name the block's device's
// unless the wrapper names a device; the legacy and per-thread handles follow
// the current device unless the wrapper names one.
int default_stream_device(cubridge_stream stream, int block_device) {
  const cudaStream_t raw = raw_stream(stream);
  if (!default_stream(raw)) return -1;
  if (stream != nullptr && stream->device >= 0) return stream->device;
  if (raw == nullptr) return block_device;
  int current = block_device;
  if (cudaGetDevice(&current) != cudaSuccess) (void)cudaGetLastError();
  return current;
}

cubridge_status pool_free_block(const char* fn, void* p, const Allocation& a, size_t bytes,
                                cubridge_stream stream) {
  const int device = a.info.device;
  count_free(device, bytes);
  // Freed on the stream it was allocated on (a default stream: the block's
  // device's) is kept for that stream.
  cudaStream_t key;
  if (a.cacheable && cache_stream(stream, bytes, &key) && key == a.cache_stream &&
      (key != nullptr || default_stream_device(stream, device) == device) &&
      cache_put(device, key, bytes, p)) {
    return CUBRIDGE_OK;
  }
  DevicePool* dp = pool_of(device);
  if (dp && dp->pool) {
    DeviceGuard guard;
    const int on = default_stream_device(stream, device);
    if (on >= 0) CUBRIDGE_TRY(guard.enter(fn, on));
    CUBRIDGE_CUDA(fn, cudaFreeAsync(p, raw_stream(stream)));
  } else {
    CUBRIDGE_CUDA(fn, cudaFree(p));
  }
  return CUBRIDGE_OK;
}

const char* kind_label(int kind) {
  switch (kind) {
    case CUBRIDGE_MEMORY_DEVICE:
      return "DEVICE";
    case CUBRIDGE_MEMORY_MANAGED:
      return "MANAGED";
    case CUBRIDGE_MEMORY_PINNED:
      return "PINNED";
    case CUBRIDGE_MEMORY_HOST:
      return "HOST";
    default:
      return "unknown";
  }
}

cubridge_status check_alloc_kind(const char* fn, int kind) {
  if (kind == CUBRIDGE_MEMORY_DEVICE || kind == CUBRIDGE_MEMORY_MANAGED ||
      kind == CUBRIDGE_MEMORY_PINNED) {
    return CUBRIDGE_OK;
  }
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: argument 'kind' = %d (%s) is not DEVICE, MANAGED or PINNED", fn, kind,
              kind_label(kind));
}

cubridge_status free_memory(const char* fn, int kind, void* ptr, cubridge_stream stream) {
  CUBRIDGE_TRY(check_alloc_kind(fn, kind));
  if (ptr == nullptr) return CUBRIDGE_OK;
  if (on_cpu()) {
    size_t bytes = 0;
    bool counted = false;
    CUBRIDGE_TRY(host_free(fn, ptr, &bytes, &counted));
    if (counted) count_free(0, bytes);
    return CUBRIDGE_OK;
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  Allocation a;
  const bool known = forget_allocation(ptr, &a);
  const size_t bytes = known ? a.end - reinterpret_cast<uintptr_t>(ptr) : 0;
  if (known && a.origin != Origin::kMalloc) {
    const int want = a.origin == Origin::kPool ? CUBRIDGE_MEMORY_DEVICE : CUBRIDGE_MEMORY_PINNED;
    if (kind != want) {
      remember_allocation(ptr, bytes, a.info, a.origin, a.cacheable, a.cache_stream);
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument 'ptr' is %s memory of cubridge_malloc_async, freed as kind %s", fn,
                  kind_label(want), kind_label(kind));
    }
    if (a.origin == Origin::kPool) {
      return pool_free_block(fn, ptr, a, bytes, stream);
    }
    DeviceGuard guard;
    if (stream) CUBRIDGE_TRY(guard.enter(fn, stream->device));
    return pinned_free(fn, ptr, bytes, raw_stream(stream));
  }
  // cubridge_malloc memory: synchronous free, as cubridge_free always did.
  if (kind == CUBRIDGE_MEMORY_PINNED) {
    CUBRIDGE_CUDA(fn, cudaFreeHost(ptr));
  } else {
    CUBRIDGE_CUDA(fn, cudaFree(ptr));
  }
  return CUBRIDGE_OK;
}

}  // namespace cubridge

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_malloc_async(int kind, size_t bytes, int device,
                                                   cubridge_stream stream, void** ptr) {
  const char* fn = "cubridge_malloc_async";
  clear_error();
  if (ptr == nullptr) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'ptr' is NULL", fn);
  *ptr = nullptr;
  CUBRIDGE_TRY(check_alloc_kind(fn, kind));
  if (device < -1) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'device' = %d is not -1 (current) or a device index", fn, device);
  }
  if (on_cpu()) {
    int dev = 0;
    CUBRIDGE_TRY(resolve_device(fn, "device", device, &dev));
    if (bytes == 0) return CUBRIDGE_OK;
    void* p = nullptr;
    CUBRIDGE_TRY(host_alloc(fn, bytes, true, &p));
    count_alloc(0, bytes);
    *ptr = p;
    return CUBRIDGE_OK;
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  // The device: as asked, else the stream's, else the caller's.
  const int sdev = stream ? stream->device : -1;
  int dev = device;
  if (dev == -1) {
    if (sdev >= 0) {
      dev = sdev;
    } else {
      CUBRIDGE_TRY(current_device(fn, &dev));
    }
  } else {
    CUBRIDGE_TRY(check_device_index(fn, "device", dev));
    if (sdev >= 0 && sdev != dev && kind != CUBRIDGE_MEMORY_PINNED) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument 'stream' is on device %d but argument 'device' = %d", fn, sdev,
                  dev);
    }
  }
  if (bytes == 0) return CUBRIDGE_OK;
  if (bytes > SIZE_MAX - kAlign) {
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: argument 'bytes' = %zu is too large", fn, bytes);
  }
  if (kind == CUBRIDGE_MEMORY_MANAGED) {
    DeviceGuard guard;
    CUBRIDGE_TRY(guard.enter(fn, dev));
    cubridge_status st = cubridge_malloc(kind, bytes, ptr);
    if (st != CUBRIDGE_OK) {
      // Keep cubridge_malloc's message but name this function.
      char msg[512];
      snprintf(msg, sizeof(msg), "%s", cubridge_last_error());
      return fail(st, "%s (via %s)", msg, fn);
    }
    return CUBRIDGE_OK;
  }
  void* p = nullptr;
  DeviceGuard guard;
  if (kind == CUBRIDGE_MEMORY_PINNED) {
    CUBRIDGE_TRY(pinned_alloc(fn, bytes, &p));
    if (!remember_allocation(p, bytes, PtrInfo{Loc::kPinned, -1}, Origin::kPinned)) {
      cudaFreeHost(p);
      return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    *ptr = p;
    return CUBRIDGE_OK;
  }
  // A block this stream freed before costs no CUDA call (block_cache.h). A
  // stream the cache takes part for does not record a graph (cache_stream
  // asked); any other is asked here: memory allocated into a recording would
  // belong to the graph's launches.
  cudaStream_t key = nullptr;
  const bool cacheable = cache_stream(stream, bytes, &key);
  bool recording = false;
  if (!cacheable) CUBRIDGE_CUDA(fn, stream_recording(stream, &recording));
  if (recording) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'stream' is recording a graph, and a recording cannot allocate "
                "memory: allocate before the capture (from Python: pass out= arrays made "
                "before it)",
                fn);
  }
  if (!cacheable || !cache_take(dev, key, bytes, &p)) {
    // A size this stream has not kept: what it kept goes back to the pool,
    // which can reuse it for this very allocation (same stream).
    if (cacheable) cache_release(dev, key);
    CUBRIDGE_TRY(guard.enter(fn, dev));
    CUBRIDGE_TRY(device_alloc(fn, dev, cache_block_bytes(bytes), raw_stream(stream), &p));
  }
  if (!remember_allocation(p, bytes, PtrInfo{Loc::kDevice, dev}, Origin::kPool, cacheable, key)) {
    if (!cacheable || !cache_put(dev, key, bytes, p)) {
      CUBRIDGE_TRY(guard.enter(fn, dev));
      scratch_free(p, raw_stream(stream));
    }
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  count_alloc(dev, bytes);
  *ptr = p;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_free_async(int kind, void* ptr, cubridge_stream stream) {
  clear_error();
  return free_memory("cubridge_free_async", kind, ptr, stream);
}

CUBRIDGE_API cubridge_status cubridge_memory_stats_get(int device, cubridge_memory_stats* stats) {
  const char* fn = "cubridge_memory_stats_get";
  clear_error();
  if (!stats) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stats' is NULL", fn);
  // Callers built before cached_bytes existed pass the struct without it.
  const size_t oldest = offsetof(cubridge_memory_stats, cached_bytes);
  const size_t size = stats->struct_size;
  if (size < oldest) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: stats->struct_size = %zu; set it to sizeof(cubridge_memory_stats) = %zu", fn,
                size, sizeof(cubridge_memory_stats));
  }
  int dev = 0;
  CUBRIDGE_TRY(resolve_device(fn, "device", device, &dev));
  if (dev >= kMaxDevices) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: device %d is beyond the library's tables", fn,
                dev);
  }
  const Counters& c = g_counters[dev];
  // Fields of 0.1 (up to cached_bytes) and of 0.2 (scratch_bytes).
  const size_t with_cached = offsetof(cubridge_memory_stats, scratch_bytes);
  stats->struct_size = size < with_cached                     ? oldest
                       : size < sizeof(cubridge_memory_stats) ? with_cached
                                                              : sizeof(cubridge_memory_stats);
  // Blocks in the array cache were freed by their users: cached, not in use.
  const uint64_t kept = on_cpu() ? 0 : array_cache_bytes(dev);
  stats->in_use_bytes = c.in_use.load() - kept;
  stats->peak_in_use_bytes = c.peak.load();
  stats->alloc_count = c.allocs.load();
  stats->free_count = c.frees.load();
  stats->reserved_bytes = stats->in_use_bytes;
  const uint64_t cached = on_cpu() ? host_cached() : cache_bytes(dev) + kept;
  if (size >= with_cached) stats->cached_bytes = cached;
  if (size >= sizeof(cubridge_memory_stats)) {
    stats->scratch_bytes = on_cpu() ? 0 : staging_bytes(dev) + reduce_scratch_bytes(dev);
  }
  if (on_cpu()) {
    stats->reserved_bytes += cached;
  } else {
    DevicePool* dp = pool_of(dev);
    uint64_t reserved = 0;
    if (dp && dp->pool) {
      CUBRIDGE_CUDA(
          fn, cudaMemPoolGetAttribute(dp->pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
      stats->reserved_bytes = reserved;
    }
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_empty_cache(int device) {
  const char* fn = "cubridge_empty_cache";
  clear_error();
  if (device != -1) CUBRIDGE_TRY(check_device_index(fn, "device", device));
  if (on_cpu()) {
    host_trim();
    return CUBRIDGE_OK;
  }
  const int count = backend().device_count;
  for (int d = 0; d < count && d < kMaxDevices; ++d) {
    if (device != -1 && d != device) continue;
    if (!g_pools[d].used.load()) continue;  // never allocated there: nothing cached
    DeviceGuard guard;
    CUBRIDGE_TRY(guard.enter(fn, d));
    array_cache_release(d);
    cache_release_device(d);
    trim_staging(d);
    trim_device(d);
  }
  trim_pinned(true);
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_shutdown(void) {
  const char* fn = "cubridge_shutdown";
  clear_error();
  if (on_cpu()) {
    host_trim();
    return CUBRIDGE_OK;
  }
  if (backend().cuda_status != CUBRIDGE_OK) return CUBRIDGE_OK;  // nothing was ever made
  const int count = backend().device_count;
  for (int d = 0; d < count && d < kMaxDevices; ++d) {
    if (!g_pools[d].used.load()) continue;
    DeviceGuard guard;
    CUBRIDGE_TRY(guard.enter(fn, d));
    CUBRIDGE_CUDA(fn, cudaDeviceSynchronize());
    array_cache_release(d);
    cache_release_device(d);
    trim_staging(d);
  }
  reduce_scratch_release();
  event_spares_release();
  for (int d = 0; d < count && d < kMaxDevices; ++d) {
    if (!g_pools[d].used.load()) continue;
    DeviceGuard guard;
    CUBRIDGE_TRY(guard.enter(fn, d));
    trim_device(d);
  }
  trim_pinned(true);
  return CUBRIDGE_OK;
}

}  // extern "C"
