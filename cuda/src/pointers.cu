// Pointer classification: the allocation table, then cudaPointerGetAttributes.
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <new>

#include "pointers.h"
#include "status.h"

namespace cubridge {

namespace {

std::mutex g_alloc_mu;
// Leaked on purpose: frees may come from static destructors at exit.
std::map<uintptr_t, Allocation>* g_allocs = nullptr;

bool lookup_allocation(const void* p, PtrInfo* info) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lk(g_alloc_mu);
  if (!g_allocs || g_allocs->empty()) return false;
  auto it = g_allocs->upper_bound(a);  // first allocation starting after p
  if (it == g_allocs->begin()) return false;
  --it;
  if (a >= it->second.end) return false;
  *info = it->second.info;
  return true;
}

}  // namespace

bool remember_allocation(const void* p, size_t bytes, PtrInfo info, Origin origin, bool cacheable,
                         cudaStream_t cache_stream) {
  if (p == nullptr || bytes == 0) return true;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lk(g_alloc_mu);
  try {
    if (!g_allocs) g_allocs = new std::map<uintptr_t, Allocation>();
    (*g_allocs)[a] = Allocation{a + bytes, info, origin, cacheable, cache_stream};
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

bool forget_allocation(const void* p, Allocation* out) {
  std::lock_guard<std::mutex> lk(g_alloc_mu);
  if (!g_allocs) return false;
  auto it = g_allocs->find(reinterpret_cast<uintptr_t>(p));
  if (it == g_allocs->end()) return false;
  if (out) *out = it->second;
  g_allocs->erase(it);
  return true;
}

cubridge_status query_pointer(const char* fn, const char* arg, const void* p, PtrInfo* info) {
  if (lookup_allocation(p, info)) return CUBRIDGE_OK;
  cudaPointerAttributes attr;
  cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    if (err == cudaErrorInvalidValue) {
      // Older runtimes report unregistered host memory this way.
      (void)cudaGetLastError();
      info->loc = Loc::kPageable;
      info->device = -1;
      return CUBRIDGE_OK;
    }
    return fail_cuda(err, fn, arg);
  }
  switch (attr.type) {
    case cudaMemoryTypeHost:
      // Registered memory that the device sees at another address cannot be
      // handed to a kernel as is: treat it like pageable memory (host path).
      info->loc = attr.devicePointer == p ? Loc::kPinned : Loc::kPageable;
      info->device = -1;
      break;
    case cudaMemoryTypeDevice:
      info->loc = Loc::kDevice;
      info->device = attr.device;
      break;
    case cudaMemoryTypeManaged:
      info->loc = Loc::kManaged;
      info->device = attr.device;
      break;
    default:
      info->loc = Loc::kPageable;
      info->device = -1;
      break;
  }
  return CUBRIDGE_OK;
}

}  // namespace cubridge
