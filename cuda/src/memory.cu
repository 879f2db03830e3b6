// Memory: allocation of every kind, pointer kinds, copies, prefetch.
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "checks.h"
#include "devices.h"
#include "host_alloc.h"
#include "pointers.h"
#include "pool.h"
#include "status.h"
#include "streams.h"
#include "tuning.h"

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_malloc(int kind, size_t bytes, void** ptr) {
  const char* fn = "cubridge_malloc";
  clear_error();
  if (ptr == nullptr) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'ptr' is NULL", fn);
  *ptr = nullptr;
  CUBRIDGE_TRY(check_alloc_kind(fn, kind));
  if (bytes == 0) return CUBRIDGE_OK;
  if (bytes > SIZE_MAX - kAlign) {
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: argument 'bytes' = %zu is too large", fn, bytes);
  }
  if (on_cpu()) return host_alloc(fn, bytes, false, ptr);
  CUBRIDGE_TRY(cuda_ready(fn));
  int device = 0;
  CUBRIDGE_CUDA(fn, cudaGetDevice(&device));
  void* p = nullptr;
  cudaError_t err = cudaSuccess;
  // Short of memory, the caches go back to the driver and it is tried again.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt > 0) {
      if (err != cudaErrorMemoryAllocation) break;
      (void)cudaGetLastError();
      release_cached(device);
    }
    switch (kind) {
      case CUBRIDGE_MEMORY_DEVICE:
        err = cudaMalloc(&p, bytes);
        break;
      case CUBRIDGE_MEMORY_MANAGED: {
        // Never ask for more managed memory than the device has free: it can
        // hang the GPU instead of failing.
        size_t free_b = 0, total_b = 0;
        CUBRIDGE_CUDA(fn, cudaMemGetInfo(&free_b, &total_b));
        if (bytes <= free_b) {
          err = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
        } else if (attempt == 0) {
          err = cudaErrorMemoryAllocation;
        } else {
          return fail(CUBRIDGE_ERR_OUT_OF_MEMORY,
                      "%s: MANAGED request of %zu bytes exceeds the device's free memory (%zu "
                      "bytes, cached blocks released first)",
                      fn, bytes, free_b);
        }
        break;
      }
      case CUBRIDGE_MEMORY_PINNED:
        err = cudaMallocHost(&p, bytes);
        break;
    }
  }
  if (err != cudaSuccess) {
    cubridge_status st = fail_cuda(err, fn,
                                   kind == CUBRIDGE_MEMORY_PINNED    ? "cudaMallocHost"
                                   : kind == CUBRIDGE_MEMORY_MANAGED ? "cudaMallocManaged"
                                                                     : "cudaMalloc");
    if (st == CUBRIDGE_ERR_OUT_OF_MEMORY) {
      fail(st, "%s: out of %s memory allocating %zu bytes", fn, kind_label(kind), bytes);
    }
    return st;
  }
  // What cudaPointerGetAttributes would say about it (pinned memory from
  // cudaMallocHost has the same address on the device under UVA).
  PtrInfo info{Loc::kPinned, -1};
  if (kind != CUBRIDGE_MEMORY_PINNED) {
    info = PtrInfo{kind == CUBRIDGE_MEMORY_DEVICE ? Loc::kDevice : Loc::kManaged, device};
    remember_allocation(p, bytes, info, Origin::kMalloc);
  } else {
    void* dev = nullptr;
    if (cudaHostGetDevicePointer(&dev, p, 0) == cudaSuccess && dev == p) {
      remember_allocation(p, bytes, info, Origin::kMalloc);
    } else {
      (void)cudaGetLastError();
    }
  }
  *ptr = p;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_free(int kind, void* ptr) {
  clear_error();
  // Memory of cubridge_malloc_async is accepted too (freed on the default
  // stream of its device).
  return free_memory("cubridge_free", kind, ptr, nullptr);
}

CUBRIDGE_API cubridge_status cubridge_pointer_kind(const void* ptr, int* kind, int* device) {
  const char* fn = "cubridge_pointer_kind";
  clear_error();
  if (ptr == nullptr) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'ptr' is NULL", fn);
  if (kind == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'kind' is NULL", fn);
  }
  if (on_cpu()) {
    *kind = CUBRIDGE_MEMORY_HOST;
    if (device) *device = -1;
    return CUBRIDGE_OK;
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  PtrInfo info;
  CUBRIDGE_TRY(query_pointer(fn, "ptr", ptr, &info));
  switch (info.loc) {
    case Loc::kPageable:
      *kind = CUBRIDGE_MEMORY_HOST;
      break;
    case Loc::kPinned:
      *kind = CUBRIDGE_MEMORY_PINNED;
      break;
    case Loc::kDevice:
      *kind = CUBRIDGE_MEMORY_DEVICE;
      break;
    case Loc::kManaged:
      *kind = CUBRIDGE_MEMORY_MANAGED;
      break;
  }
  if (device) *device = info.device;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_memcpy(void* dst, const void* src, size_t bytes,
                                             cubridge_stream stream) {
  const char* fn = "cubridge_memcpy";
  clear_error();
  if (bytes == 0) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "dst", dst, bytes));
  CUBRIDGE_TRY(check_not_null(fn, "src", src, bytes));
  // cudaMemcpy does not allow overlap; refuse it on every backend alike.
  CUBRIDGE_TRY(check_overlap(fn, "dst", dst, 1, "src", src, 1, bytes));
  if (dst == src) return CUBRIDGE_OK;
  if (on_cpu()) {
    memcpy(dst, src, bytes);
    return CUBRIDGE_OK;
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  PtrInfo d, s;
  CUBRIDGE_TRY(query_pointer(fn, "dst", dst, &d));
  CUBRIDGE_TRY(query_pointer(fn, "src", src, &s));
  if (d.loc == Loc::kPageable && s.loc == Loc::kPageable) {
    memcpy(dst, src, bytes);
    return CUBRIDGE_OK;
  }
  // Without a stream the copy runs on the default stream of the device its
  // device memory is on: pool memory is accessible from its own device only,
  // not from the caller's current one.
  const int dev = d.loc == Loc::kDevice ? d.device : s.loc == Loc::kDevice ? s.device : -1;
  DeviceGuard guard;
  if (stream == nullptr && dev >= 0) CUBRIDGE_TRY(guard.enter(fn, dev));
  cudaStream_t st = raw_stream(stream);
  if (d.loc == Loc::kDevice && s.loc == Loc::kDevice && d.device != s.device) {
    // On a default stream: after the work queued on either device and before
    // the work queued next (cudaMemcpyPeer), as a default-stream op on each of
    // the two would be; the destination device's stream alone would leave the
    // source's writer and next writer unordered with the copy.
    if (default_stream(st)) {
      CUBRIDGE_CUDA(fn, cudaMemcpyPeer(dst, d.device, src, s.device, bytes));
    } else {
      CUBRIDGE_CUDA(fn, cudaMemcpyPeerAsync(dst, d.device, src, s.device, bytes, st));
    }
  } else {
    CUBRIDGE_CUDA(fn, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st));
  }
  if (d.loc == Loc::kPageable || s.loc == Loc::kPageable) {
    CUBRIDGE_CUDA(fn, cudaStreamSynchronize(st));
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_prefetch(const void* ptr, size_t bytes, int device,
                                               cubridge_stream stream) {
  const char* fn = "cubridge_prefetch";
  clear_error();
  if (bytes == 0) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "ptr", ptr, bytes));
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  if (device < -1 || device >= backend().device_count) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'device' = %d is not -1 (host) or a device index below %d", fn,
                device, backend().device_count);
  }
  PtrInfo info;
  CUBRIDGE_TRY(query_pointer(fn, "ptr", ptr, &info));
  if (info.loc != Loc::kManaged) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'ptr' is not managed memory", fn);
  }
  cudaMemLocation loc;
  memset(&loc, 0, sizeof(loc));
  if (device < 0) {
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
  } else {
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
  }
  CUBRIDGE_CUDA(fn, cudaMemPrefetchAsync(ptr, bytes, loc, 0, raw_stream(stream)));
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_mem_info(size_t* free_bytes, size_t* total_bytes) {
  return mem_info("cubridge_mem_info", std::nullopt, free_bytes, total_bytes);
}

}  // extern "C"
