// Device queries and the scoped device guard.
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend.h"
#include "devices.h"
#include "status.h"

namespace cubridge {

namespace {
thread_local int t_assumed = -1;
}  // namespace

cubridge_status current_device(const char* fn, int* device) {
  *device = 0;
  CUBRIDGE_CUDA(fn, cudaGetDevice(device));
  return CUBRIDGE_OK;
}

cubridge_status check_device_index(const char* fn, const char* arg, int device) {
  if (on_cpu()) {
    if (device == 0) return CUBRIDGE_OK;
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument '%s' = %d: the CPU backend has one device, the host (device 0)", fn,
                arg, device);
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  const int count = backend().device_count;
  if (device >= 0 && device < count) return CUBRIDGE_OK;
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: argument '%s' = %d is out of range (%d device%s visible: 0..%d)", fn, arg,
              device, count, count == 1 ? "" : "s", count - 1);
}

cubridge_status resolve_device(const char* fn, const char* arg, int device, int* out) {
  if (device == -1) {
    if (on_cpu()) {
      *out = 0;
      return CUBRIDGE_OK;
    }
    CUBRIDGE_TRY(cuda_ready(fn));
    return current_device(fn, out);
  }
  CUBRIDGE_TRY(check_device_index(fn, arg, device));
  *out = device;
  return CUBRIDGE_OK;
}

cubridge_status DeviceGuard::enter(const char* fn, int device) {
  if (device < 0 || on_cpu()) return CUBRIDGE_OK;
  int cur = 0;
  CUBRIDGE_TRY(current_device(fn, &cur));
  if (cur == device) return CUBRIDGE_OK;
  CUBRIDGE_CUDA(fn, cudaSetDevice(device));
  if (prev_ < 0) prev_ = cur;
  return CUBRIDGE_OK;
}

void DeviceGuard::restore() {
  if (prev_ < 0) return;
  if (cudaSetDevice(prev_) != cudaSuccess) (void)cudaGetLastError();
  prev_ = -1;
}

cubridge_status mem_info(const char* fn, std::optional<int> device, size_t* free_bytes,
                         size_t* total_bytes) {
  clear_error();
  if (!free_bytes) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'free_bytes' is NULL", fn);
  }
  if (!total_bytes) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'total_bytes' is NULL", fn);
  }
  *free_bytes = *total_bytes = 0;
  if (device) CUBRIDGE_TRY(check_device_index(fn, "device", *device));
  if (on_cpu()) {
    long page = sysconf(_SC_PAGESIZE), avail = sysconf(_SC_AVPHYS_PAGES),
         total = sysconf(_SC_PHYS_PAGES);
    *free_bytes = avail > 0 && page > 0 ? static_cast<size_t>(avail) * page : 0;
    *total_bytes = total > 0 && page > 0 ? static_cast<size_t>(total) * page : 0;
    return CUBRIDGE_OK;
  }
  DeviceGuard guard;
  CUBRIDGE_TRY(device ? guard.enter(fn, *device) : cuda_ready(fn));
  CUBRIDGE_CUDA(fn, cudaMemGetInfo(free_bytes, total_bytes));
  return CUBRIDGE_OK;
}

int take_assumed_device() {
  int d = t_assumed;
  t_assumed = -1;
  return d;
}

}  // namespace cubridge

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_get_device(int* device) {
  const char* fn = "cubridge_get_device";
  clear_error();
  if (!device) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'device' is NULL", fn);
  *device = 0;
  if (on_cpu()) return CUBRIDGE_OK;
  CUBRIDGE_TRY(cuda_ready(fn));
  return current_device(fn, device);
}

CUBRIDGE_API cubridge_status cubridge_check_device(int device) {
  clear_error();
  return check_device_index("cubridge_check_device", "device", device);
}

CUBRIDGE_API cubridge_status cubridge_device_mem_info(int device, size_t* free_bytes,
                                                      size_t* total_bytes) {
  return mem_info("cubridge_device_mem_info", device, free_bytes, total_bytes);
}

CUBRIDGE_API cubridge_status cubridge_assume_device(int device) {
  const char* fn = "cubridge_assume_device";
  clear_error();
  t_assumed = -1;
  if (device == -1) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_device_index(fn, "device", device));
  t_assumed = device;
  return CUBRIDGE_OK;
}

}  // extern "C"
