// Pointer classification and argument checks.
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <new>

#include "backend.h"
#include "dtypes.h"
#include "pointers.h"
#include "status.h"
#include "streams.h"

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

bool remember_allocation(const void* p, size_t bytes, PtrInfo info, Origin origin) {
  if (p == nullptr || bytes == 0) return true;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lk(g_alloc_mu);
  try {
    if (!g_allocs) g_allocs = new std::map<uintptr_t, Allocation>();
    (*g_allocs)[a] = Allocation{a + bytes, info, origin};
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

cubridge_status route(const char* fn, const Arg* args, int count, size_t host_bytes,
                      cubridge_stream stream, Route* r) {
  r->device = -1;
  if (on_cpu()) {
    r->path = Path::kCpu;
    return CUBRIDGE_OK;
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  const int sdev = stream ? stream->device : -1;
  if (r->assumed >= 0) {
    // The front end vouched for every pointer: device memory of `assumed`.
    if (sdev >= 0 && sdev != r->assumed) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument 'stream' is on device %d but the arrays are on device %d", fn, sdev,
                  r->assumed);
    }
    r->path = Path::kDevice;
    r->device = r->assumed;
    return r->guard.enter(fn, r->device);
  }
  int pageable = -1, device_side = -1, owner = -1;
  PtrInfo infos[4];
  if (count > 4) return fail(CUBRIDGE_ERR_INTERNAL, "%s: too many pointer arguments", fn);
  for (int i = 0; i < count; ++i) {
    PtrInfo& info = infos[i];
    int same = -1;  // an aliased pointer is looked up once
    for (int j = 0; j < i && same < 0; ++j) {
      if (args[j].ptr == args[i].ptr) same = j;
    }
    if (same >= 0) {
      info = infos[same];
    } else {
      CUBRIDGE_TRY(query_pointer(fn, args[i].name, args[i].ptr, &info));
    }
    if (info.loc == Loc::kPageable) {
      if (pageable < 0) pageable = i;
    } else if (info.loc == Loc::kDevice || info.loc == Loc::kManaged) {
      if (device_side < 0) device_side = i;
      // Device memory belongs to one device; managed memory to none.
      if (info.loc == Loc::kDevice) {
        if (owner < 0) {
          owner = i;
        } else if (info.device != infos[owner].device) {
          return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                      "%s: arrays on different devices: '%s' is on device %d, '%s' is on "
                      "device %d",
                      fn, args[owner].name, infos[owner].device, args[i].name, info.device);
        }
      }
    }
  }
  if (pageable >= 0 && device_side >= 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument '%s' is pageable host memory but argument '%s' is device memory; "
                "copy one side first (cubridge_memcpy) or use pinned/managed memory",
                fn, args[pageable].name, args[device_side].name);
  }
  if (pageable >= 0) {
    r->path = host_bytes <= kHostInlineBytes ? Path::kCpu : Path::kHost;
    return CUBRIDGE_OK;
  }
  r->path = Path::kDevice;
  if (owner >= 0) {
    r->device = infos[owner].device;
    if (sdev >= 0 && sdev != r->device) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument 'stream' is on device %d but argument '%s' is on device %d", fn,
                  sdev, args[owner].name, r->device);
    }
  } else if (sdev >= 0) {
    r->device = sdev;  // managed/pinned only: the stream's device
  } else {
    CUBRIDGE_TRY(current_device(fn, &r->device));  // else the caller's
  }
  return r->guard.enter(fn, r->device);
}

cubridge_status check_not_null(const char* fn, const char* name, const void* p, size_t n) {
  if (p == nullptr && n > 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL but n = %zu", fn, name,
                n);
  }
  return CUBRIDGE_OK;
}

cubridge_status check_dtype(const char* fn, const char* name, int dtype) {
  if (dtype_known(dtype)) return CUBRIDGE_OK;
  return fail(CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "%s: argument '%s' = %d is not a known dtype", fn,
              name, dtype);
}

cubridge_status check_length(const char* fn, size_t n, size_t size) {
  if (size != 0 && n > (SIZE_MAX / 2) / size) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'n' = %zu is too large", fn, n);
  }
  return CUBRIDGE_OK;
}

cubridge_status check_overlap(const char* fn, const char* na, const void* a, size_t sa,
                              const char* nb, const void* b, size_t sb, size_t n) {
  if (n == 0 || a == nullptr || b == nullptr) return CUBRIDGE_OK;
  uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  uintptr_t a1 = a0 + n * sa, b1 = b0 + n * sb;
  if (a1 <= b0 || b1 <= a0) return CUBRIDGE_OK;  // disjoint
  if (a0 == b0 && sa == sb) return CUBRIDGE_OK;  // exact alias
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: arguments '%s' and '%s' partially overlap (only exact aliasing is allowed)", fn,
              na, nb);
}

}  // namespace cubridge
