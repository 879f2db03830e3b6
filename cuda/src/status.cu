// Thread-local messages and CUDA error classification.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <atomic>

#include "status.h"

namespace cubridge {
namespace {

thread_local char g_message[512];
std::atomic<bool> g_sticky{false};

bool is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

cubridge_status classify(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return CUBRIDGE_ERR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
      return CUBRIDGE_ERR_NO_DEVICE;
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemNotReady:
      return CUBRIDGE_ERR_DRIVER;
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidConfiguration:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorInvalidKernelImage:
    case cudaErrorInvalidPtx:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorSharedObjectInitFailed:
      return CUBRIDGE_ERR_LAUNCH_FAILED;
    default:
      return CUBRIDGE_ERR_CUDA;
  }
}

}  // namespace

void clear_error() { g_message[0] = '\0'; }

const char* last_error() { return g_message; }

cubridge_status fail(cubridge_status status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_message, sizeof(g_message), fmt, ap);
  va_end(ap);
  return status;
}

cubridge_status fail_cuda(cudaError_t err, const char* fn, const char* what) {
  cubridge_status st;
  if (is_sticky(err)) {
    g_sticky.store(true, std::memory_order_relaxed);
    st = CUBRIDGE_ERR_CUDA_STICKY;
  } else {
    st = classify(err);
    // Clear the non-sticky error so it does not leak into the next call.
    (void)cudaGetLastError();
  }
  const char* name = cudaGetErrorName(err);
  const char* desc = cudaGetErrorString(err);
  return fail(
      st, "%s: %s failed: %s (%s)%s", fn, what, name ? name : "?", desc ? desc : "?",
      st == CUBRIDGE_ERR_CUDA_STICKY ? "; the CUDA context is unusable, restart the process" : "");
}

bool cuda_is_sticky() { return g_sticky.load(std::memory_order_relaxed); }

}  // namespace cubridge
