// Library state: version, messages, names, backend and device queries.
#include <cuda_runtime_api.h>
#include <string.h>

#include "backend.h"
#include "dtypes.h"
#include "status.h"

using namespace cubridge;

namespace {

// The names of the C ABI's status codes and memory kinds, by value (both
// enums count up from 0 in cubridge.h).
constexpr const char* kStatusNames[] = {
    "OK",          "INVALID_ARGUMENT", "UNSUPPORTED_DTYPE", "OUT_OF_MEMORY",
    "NO_DEVICE",   "DRIVER",           "LAUNCH_FAILED",     "CUDA",
    "CUDA_STICKY", "INTERNAL",
};
constexpr int kStatusCount = sizeof(kStatusNames) / sizeof(kStatusNames[0]);
static_assert(kStatusCount == CUBRIDGE_ERR_INTERNAL + 1, "a status without a name");

constexpr const char* kMemoryNames[] = {"host", "device", "managed", "pinned"};
constexpr int kMemoryCount = sizeof(kMemoryNames) / sizeof(kMemoryNames[0]);
static_assert(kMemoryCount == CUBRIDGE_MEMORY_PINNED + 1, "a memory kind without a name");

}  // namespace

extern "C" {

CUBRIDGE_API int cubridge_version(void) { return CUBRIDGE_VERSION; }

CUBRIDGE_API const char* cubridge_last_error(void) { return last_error(); }

CUBRIDGE_API const char* cubridge_status_name(int status) {
  return 0 <= status && status < kStatusCount ? kStatusNames[status] : "UNKNOWN";
}

CUBRIDGE_API int cubridge_status_count(void) { return kStatusCount; }

CUBRIDGE_API int cubridge_dtype_count(void) {
  int count = 0;
#define CUBRIDGE_X(E, T, NAME, FLT) ++count;
  CUBRIDGE_DTYPES(CUBRIDGE_X)
#undef CUBRIDGE_X
  return count;
}

CUBRIDGE_API const char* cubridge_memory_name(int kind) {
  return 0 <= kind && kind < kMemoryCount ? kMemoryNames[kind] : nullptr;
}

CUBRIDGE_API int cubridge_cuda_version(void) {
#if defined(CUBRIDGE_NO_CUDA) || !defined(CUDART_VERSION)
  return 0;
#else
  return CUDART_VERSION;
#endif
}

CUBRIDGE_API int cubridge_driver_version(void) {
#if defined(CUBRIDGE_NO_CUDA)
  return 0;
#else
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) return 0;
  return v;
#endif
}

CUBRIDGE_API const char* cubridge_dtype_name(int dtype) { return dtype_name(dtype); }

CUBRIDGE_API size_t cubridge_dtype_size(int dtype) { return dtype_size(dtype); }

CUBRIDGE_API cubridge_status cubridge_get_backend(int* out) {
  clear_error();
  if (!out) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "cubridge_get_backend: argument 'backend' is NULL");
  }
  *out = backend().kind;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_device_count(int* count) {
  clear_error();
  if (!count) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "cubridge_device_count: argument 'count' is NULL");
  }
  *count = backend().device_count;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_device_name(int device, char* buf, size_t len) {
  const char* fn = "cubridge_device_name";
  clear_error();
  if (!buf) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL", fn);
  if (len == 0) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'len' is 0", fn);
  buf[0] = '\0';
  if (on_cpu()) {
    return fail(CUBRIDGE_ERR_NO_DEVICE, "%s: the CPU backend is in use; there is no device %d", fn,
                device);
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  if (device < 0 || device >= backend().device_count) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'device' = %d is out of range (%d devices)", fn, device,
                backend().device_count);
  }
  cudaDeviceProp prop;
  CUBRIDGE_CUDA(fn, cudaGetDeviceProperties(&prop, device));
  size_t n = strnlen(prop.name, sizeof(prop.name));
  if (n >= len) n = len - 1;
  memcpy(buf, prop.name, n);
  buf[n] = '\0';
  return CUBRIDGE_OK;
}

}  // extern "C"
