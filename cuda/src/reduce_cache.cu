// Scratch cache for reductions: no cudaMalloc per call once warm.
#include <string.h>

#include <map>
#include <new>
#include <utility>

#include "reduce_cache.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

namespace cubridge {
namespace {

std::mutex g_mu;
// Leaked on purpose: entries outlive any stream that used them.
std::map<std::pair<int, cudaStream_t>, ReduceScratch*>* g_cache = nullptr;

// The last entry this thread used: repeated reductions on one stream skip the
// global lock and the map (entries are never freed, so the pointer stays good).
struct LastUsed {
  int device = -1;
  cudaStream_t stream = nullptr;
  ReduceScratch* scratch = nullptr;
};
thread_local LastUsed t_last;

}  // namespace

cubridge_status reduce_scratch(const char* fn, cudaStream_t stream, ReduceScratch** out,
                               int* device_out) {
  int device = 0;
  CUBRIDGE_CUDA(fn, cudaGetDevice(&device));
  *device_out = device;
  if (t_last.scratch && t_last.device == device && t_last.stream == stream) {
    *out = t_last.scratch;
    return CUBRIDGE_OK;
  }
  std::lock_guard<std::mutex> lk(g_mu);
  try {
    if (!g_cache) g_cache = new std::map<std::pair<int, cudaStream_t>, ReduceScratch*>();
    auto key = std::make_pair(device, stream);
    auto it = g_cache->find(key);
    if (it != g_cache->end()) {
      *out = it->second;
      t_last = {device, stream, it->second};
      return CUBRIDGE_OK;
    }
    // The counter is zeroed on `stream` (below): not while it records a graph,
    // where the zeroing would only be recorded. A reduction cannot be
    // recorded anyway: it waits for its result.
    bool recording = false;
    CUBRIDGE_CUDA(fn, stream_recording(stream, &recording));
    if (recording) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: the stream is recording a graph; a reduction waits for its result and "
                  "cannot be recorded",
                  fn);
    }
    ReduceScratch* s = new ReduceScratch();
    const char* what = "cudaMallocHost (reduction result)";
    cudaError_t err = cudaMallocHost(&s->result, 64);
    if (err == cudaSuccess) {
      memset(s->result, 0, 64);  // the done flag starts below any seq in use
      err = cudaHostGetDevicePointer(&s->result_dev, s->result, 0);
    }
    if (err == cudaSuccess) {
      what = "cudaMalloc (reduction blocks)";
      err = cudaMalloc(&s->blocks, kRedScratchBytes);
    }
    // Zeroed on `stream`, ahead of the first kernel there: cudaMemset would run
    // on the legacy default stream, which a non-blocking stream does not wait
    // for, and returns before it has run.
    if (err == cudaSuccess) err = cudaMemsetAsync(s->blocks, 0, kRedScratchBytes, stream);
    if (err != cudaSuccess) {
      if (s->result) cudaFreeHost(s->result);
      if (s->blocks) cudaFree(s->blocks);
      delete s;
      return fail_cuda(err, fn, what);
    }
    (*g_cache)[key] = s;
    *out = s;
    t_last = {device, stream, s};
    return CUBRIDGE_OK;
  } catch (const std::bad_alloc&) {
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
}

}  // namespace cubridge
