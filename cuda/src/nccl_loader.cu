// Finds and loads libnccl.so.2: the front end's path (the Python package passes
// the one in the installed nvidia-nccl-cu13 wheel), $CUBRIDGE_NCCL_LIBRARY,
// then the loader's default search path.
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <string>

#include "nccl_loader.h"
#include "status.h"

namespace cubridge {

namespace {

std::mutex g_mu;
std::string* g_path = nullptr;  // leaked on purpose (read until exit)
std::string* g_loaded_from = nullptr;

#if !defined(CUBRIDGE_NO_CUDA)
NcclApi g_api;
bool g_ready = false;

constexpr int kMinVersion = 21900;  // 2.19: ncclGetLastError, bfloat16, stable init API

// The NCCL wheel of the CUDA major built with (--@cubridge//toolchains/cuda:version).
#if CUDART_VERSION >= 13000
#define CUBRIDGE_CU "cu13"
#else
#define CUBRIDGE_CU "cu12"
#endif
const char kInstallHint[] = "install nvidia-nccl-" CUBRIDGE_CU " (pip install cubridge-" CUBRIDGE_CU
                            "[nccl]), or set CUBRIDGE_NCCL_LIBRARY to libnccl.so.2, or put it on "
                            "LD_LIBRARY_PATH";

template <class F>
bool bind(void* lib, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  if (*fn == nullptr) *missing = name;
  return *fn != nullptr;
}

// Tries one candidate; on failure appends why to *why.
bool try_load(const std::string& path, std::string* why) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    *why += "\n  " + path + ": " + (e ? e : "dlopen failed");
    return false;
  }
  NcclApi api{};
  std::string missing;
  decltype(&ncclGetVersion) get_version = nullptr;
  bool ok = bind(lib, "ncclGetVersion", &get_version, &missing) &&
            bind(lib, "ncclGetErrorString", &api.GetErrorString, &missing) &&
            bind(lib, "ncclGetLastError", &api.GetLastError, &missing) &&
            bind(lib, "ncclGetUniqueId", &api.GetUniqueId, &missing) &&
            bind(lib, "ncclCommInitAll", &api.CommInitAll, &missing) &&
            bind(lib, "ncclCommInitRank", &api.CommInitRank, &missing) &&
            bind(lib, "ncclCommDestroy", &api.CommDestroy, &missing) &&
            bind(lib, "ncclCommAbort", &api.CommAbort, &missing) &&
            bind(lib, "ncclCommGetAsyncError", &api.CommGetAsyncError, &missing) &&
            bind(lib, "ncclCommCount", &api.CommCount, &missing) &&
            bind(lib, "ncclCommUserRank", &api.CommUserRank, &missing) &&
            bind(lib, "ncclCommCuDevice", &api.CommCuDevice, &missing) &&
            bind(lib, "ncclAllReduce", &api.AllReduce, &missing) &&
            bind(lib, "ncclBroadcast", &api.Broadcast, &missing) &&
            bind(lib, "ncclReduceScatter", &api.ReduceScatter, &missing) &&
            bind(lib, "ncclAllGather", &api.AllGather, &missing) &&
            bind(lib, "ncclGroupStart", &api.GroupStart, &missing) &&
            bind(lib, "ncclGroupEnd", &api.GroupEnd, &missing);
  if (!ok) {
    *why += "\n  " + path + ": no symbol " + missing;
    dlclose(lib);
    return false;
  }
  if (get_version(&api.version) != ncclSuccess || api.version < kMinVersion) {
    *why += "\n  " + path + ": NCCL " + std::to_string(api.version) + " is older than 2.19";
    dlclose(lib);
    return false;
  }
  g_api = api;  // the handle stays open for the life of the process
  g_loaded_from = new std::string(path);
  g_ready = true;
  return true;
}
#endif

}  // namespace

cubridge_status set_nccl_library_path(const char* path) {
  std::lock_guard<std::mutex> lk(g_mu);
  const std::string p = path ? path : "";
  if (g_loaded_from != nullptr) {
    if (p.empty() || p == *g_loaded_from) return CUBRIDGE_OK;
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "cubridge_nccl_set_library_path: NCCL is already loaded from '%s'; '%s' is not "
                "used",
                g_loaded_from->c_str(), p.c_str());
  }
  if (g_path == nullptr) g_path = new std::string();
  *g_path = p;
  return CUBRIDGE_OK;
}

#if !defined(CUBRIDGE_NO_CUDA)
const NcclApi* nccl(const char* fn, cubridge_status* status) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_ready) return &g_api;
  std::string why;
  const char* env = getenv("CUBRIDGE_NCCL_LIBRARY");
  if (g_path != nullptr && !g_path->empty() && try_load(*g_path, &why)) return &g_api;
  if (env != nullptr && env[0] != '\0' && try_load(env, &why)) return &g_api;
  if (try_load("libnccl.so.2", &why)) return &g_api;
  *status = fail(CUBRIDGE_ERR_DRIVER, "%s: NCCL not available: %s; tried:%s", fn, kInstallHint,
                 why.c_str());
  return nullptr;
}

cubridge_status fail_nccl(const NcclApi* api, ncclResult_t r, const char* fn) {
  cubridge_status status;
  switch (r) {
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      status = CUBRIDGE_ERR_INVALID_ARGUMENT;
      break;
    case ncclInternalError:
      status = CUBRIDGE_ERR_INTERNAL;
      break;
    case ncclUnhandledCudaError: {
      // The CUDA error behind it decides (sticky errors are remembered).
      cudaError_t e = cudaGetLastError();
      if (e != cudaSuccess) return fail_cuda(e, fn, "NCCL");
      status = CUBRIDGE_ERR_CUDA;
      break;
    }
    default:  // system, remote and other failures outside cubridge
      status = CUBRIDGE_ERR_CUDA;
      break;
  }
  const char* last = api->GetLastError(nullptr);
  return fail(status, "%s: NCCL %s%s%s", fn, api->GetErrorString(r), last && last[0] ? ": " : "",
              last ? last : "");
}
#endif

}  // namespace cubridge
