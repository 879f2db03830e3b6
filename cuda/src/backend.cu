// Backend selection: CUBRIDGE_BACKEND=cpu|cuda|auto, read once at first use.
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <mutex>

#include "backend.h"
#include "devices.h"
#include "status.h"

namespace cubridge {
namespace {

BackendInfo g_info;
int g_sm_count[kMaxDevices];
std::once_flag g_once;
// Set once g_info is complete: every op asks, and std::call_once alone costs
// 50-70 instructions a time (it sets thread-locals before pthread_once).
std::atomic<bool> g_ready{false};

bool ieq(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b) {
    char ca = (*a >= 'A' && *a <= 'Z') ? *a - 'A' + 'a' : *a;
    if (ca != *b) return false;
  }
  return *a == *b;
}

void init() {
  const char* env = getenv("CUBRIDGE_BACKEND");
  int want = -1;  // -1 auto
  if (env && *env) {
    if (ieq(env, "cpu"))
      want = CUBRIDGE_BACKEND_CPU;
    else if (ieq(env, "cuda") || ieq(env, "gpu"))
      want = CUBRIDGE_BACKEND_CUDA;
    else if (!ieq(env, "auto")) {
      fprintf(stderr, "cubridge: ignoring CUBRIDGE_BACKEND=%s (want cpu, cuda or auto)\n", env);
    }
  }
  g_info.kind = CUBRIDGE_BACKEND_CPU;
  g_info.device_count = 0;
  g_info.cuda_status = CUBRIDGE_OK;
  g_info.cuda_message[0] = '\0';
  if (want == CUBRIDGE_BACKEND_CPU) return;

  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count <= 0) {
    (void)cudaGetLastError();
    if (want == CUBRIDGE_BACKEND_CUDA) {
      g_info.kind = CUBRIDGE_BACKEND_CUDA;
      bool driver = err == cudaErrorInsufficientDriver || err == cudaErrorStubLibrary ||
                    err == cudaErrorSystemDriverMismatch || err == cudaErrorCallRequiresNewerDriver;
      g_info.cuda_status = driver ? CUBRIDGE_ERR_DRIVER : CUBRIDGE_ERR_NO_DEVICE;
      snprintf(g_info.cuda_message, sizeof(g_info.cuda_message), "CUBRIDGE_BACKEND=cuda but %s: %s",
               driver ? "the CUDA driver is missing or too old" : "no CUDA device is visible",
               err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount returned 0");
    }
    return;
  }
  g_info.kind = CUBRIDGE_BACKEND_CUDA;
  g_info.device_count = count;
  for (int d = 0; d < count && d < kMaxDevices; ++d) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d) != cudaSuccess ||
        sms <= 0) {
      (void)cudaGetLastError();
      sms = 1;
    }
    g_sm_count[d] = sms;
  }
}

}  // namespace

const BackendInfo& backend() {
  if (!g_ready.load(std::memory_order_acquire)) {
    std::call_once(g_once, init);
    g_ready.store(true, std::memory_order_release);
  }
  return g_info;
}

cubridge_status cuda_ready(const char* fn) {
  const BackendInfo& b = backend();
  if (b.cuda_status != CUBRIDGE_OK) return fail(b.cuda_status, "%s: %s", fn, b.cuda_message);
  if (cuda_is_sticky()) {
    return fail(CUBRIDGE_ERR_CUDA_STICKY,
                "%s: an earlier CUDA error corrupted the context; restart the process", fn);
  }
  return CUBRIDGE_OK;
}

int sm_count(int device) {
  if (device < 0 || device >= kMaxDevices || device >= backend().device_count) return 1;
  return g_sm_count[device] > 0 ? g_sm_count[device] : 1;
}

}  // namespace cubridge
