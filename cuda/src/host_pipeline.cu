// Staging sets for the pipelined host path: created lazily and kept for later
// host-array calls; their buffers come from the library's pools (pinned cache,
// device pool), so memory_stats counts them as reserved and empty_cache (or an
// allocation that runs out of device memory) gives idle sets back.
#include <mutex>
#include <new>
#include <vector>

#include "host_pipeline.h"
#include "pool.h"
#include "status.h"

namespace cubridge {
namespace {

std::mutex g_mu;
std::vector<StagingSet*>* g_sets = nullptr;  // leaked on purpose

// Returns the set's buffers to the pools once its streams are done with them,
// then frees the rest. Runs with s->device current.
void destroy(StagingSet* s) {
  for (int i = 0; i < kSlots; ++i) {
    StagingSlot& sl = s->slot[i];
    for (int b = 0; b < kSlotBuffers; ++b) {
      if (sl.host[b]) (void)pinned_free("staging", sl.host[b], kChunkBytes, sl.stream);
      scratch_free(sl.dev[b], sl.stream);
    }
    if (sl.done) cudaEventDestroy(sl.done);
    if (sl.stream) cudaStreamDestroy(sl.stream);
  }
  (void)cudaGetLastError();
  delete s;
}

cubridge_status create(const char* fn, int device, StagingSet** out) {
  StagingSet* s = new (std::nothrow) StagingSet();
  if (!s) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  s->device = device;
  s->in_use = true;
  cudaError_t err = cudaSuccess;
  const char* what = "";
  for (int i = 0; i < kSlots && err == cudaSuccess; ++i) {
    StagingSlot& sl = s->slot[i];
    what = "cudaStreamCreateWithFlags";
    err = cudaStreamCreateWithFlags(&sl.stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) break;
    what = "cudaEventCreateWithFlags";
    err = cudaEventCreateWithFlags(&sl.done, cudaEventDisableTiming);
  }
  if (err != cudaSuccess) {
    cubridge_status st = fail_cuda(err, fn, what);
    destroy(s);
    return st;
  }
  for (int i = 0; i < kSlots; ++i) {
    StagingSlot& sl = s->slot[i];
    for (int b = 0; b < kSlotBuffers; ++b) {
      cubridge_status st = pinned_alloc(fn, kChunkBytes, &sl.host[b]);
      if (st == CUBRIDGE_OK) st = scratch_alloc(fn, kChunkBytes, sl.stream, &sl.dev[b]);
      if (st != CUBRIDGE_OK) {
        destroy(s);
        return st;
      }
    }
  }
  *out = s;
  return CUBRIDGE_OK;
}

}  // namespace

cubridge_status acquire_staging(const char* fn, StagingSet** set) {
  int device = 0;
  CUBRIDGE_CUDA(fn, cudaGetDevice(&device));
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (!g_sets) {
      g_sets = new (std::nothrow) std::vector<StagingSet*>();
      if (!g_sets) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    for (StagingSet* s : *g_sets) {
      if (!s->in_use && s->device == device) {
        s->in_use = true;
        *set = s;
        return CUBRIDGE_OK;
      }
    }
  }
  StagingSet* s = nullptr;
  CUBRIDGE_TRY(create(fn, device, &s));
  {
    std::lock_guard<std::mutex> lk(g_mu);
    try {
      g_sets->push_back(s);
      s->cached = true;
    } catch (...) {
      // Not cached: still usable for this call, destroyed when released.
    }
  }
  *set = s;
  return CUBRIDGE_OK;
}

void release_staging(StagingSet* set) {
  {
    std::lock_guard<std::mutex> lk(g_mu);
    set->in_use = false;
    if (set->cached) return;
  }
  destroy(set);  // no other caller can find it
}

size_t staging_bytes(int device) {
  std::lock_guard<std::mutex> lk(g_mu);
  size_t sets = 0;
  if (g_sets) {
    for (const StagingSet* s : *g_sets) sets += s->device == device ? 1 : 0;
  }
  return sets * kSlots * kSlotBuffers * kChunkBytes;
}

void trim_staging(int device) {
  std::vector<StagingSet*> idle;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (!g_sets) return;
    auto& v = *g_sets;
    for (size_t i = 0; i < v.size();) {
      if (!v[i]->in_use && v[i]->device == device) {
        try {
          idle.push_back(v[i]);
        } catch (...) {
          break;  // keep the rest cached
        }
        v[i] = v.back();
        v.pop_back();
      } else {
        ++i;
      }
    }
  }
  for (StagingSet* s : idle) destroy(s);
}

}  // namespace cubridge
