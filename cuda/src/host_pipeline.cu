// Staging sets for the pipelined host path: created lazily, never freed
// (they are reused by every later host-array call).
#include <mutex>
#include <new>
#include <vector>

#include "host_pipeline.h"
#include "status.h"

namespace cubridge {
namespace {

std::mutex g_mu;
std::vector<StagingSet*>* g_sets = nullptr;  // leaked on purpose

void destroy(StagingSet* s) {
  for (int i = 0; i < kSlots; ++i) {
    StagingSlot& sl = s->slot[i];
    for (int b = 0; b < kSlotBuffers; ++b) {
      if (sl.host[b]) cudaFreeHost(sl.host[b]);
      if (sl.dev[b]) cudaFree(sl.dev[b]);
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
    for (int b = 0; b < kSlotBuffers && err == cudaSuccess; ++b) {
      what = "cudaMallocHost (staging buffer)";
      err = cudaMallocHost(&sl.host[b], kChunkBytes);
      if (err != cudaSuccess) break;
      what = "cudaMalloc (staging buffer)";
      err = cudaMalloc(&sl.dev[b], kChunkBytes);
    }
  }
  if (err != cudaSuccess) {
    cubridge_status st = fail_cuda(err, fn, what);
    destroy(s);
    return st;
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
  std::lock_guard<std::mutex> lk(g_mu);
  try {
    g_sets->push_back(s);
  } catch (...) {
    // Not cached: still usable for this call; leaks a little when released.
  }
  *set = s;
  return CUBRIDGE_OK;
}

void release_staging(StagingSet* set) {
  std::lock_guard<std::mutex> lk(g_mu);
  set->in_use = false;
}

}  // namespace cubridge
