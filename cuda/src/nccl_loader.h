// libnccl.so.2 loaded at run time (dlopen): the library never links NCCL, so
// it works where NCCL is not installed and says so when a comm is asked for.
#ifndef CUBRIDGE_SRC_NCCL_LOADER_H_
#define CUBRIDGE_SRC_NCCL_LOADER_H_

#include "cubridge/cubridge.h"

#if !defined(CUBRIDGE_NO_CUDA)
#include <nccl.h>

namespace cubridge {

// The NCCL entry points cubridge uses, typed from nccl.h.
struct NcclApi {
  int version;  // ncclGetVersion's code, e.g. 22809
  decltype(&ncclGetErrorString) GetErrorString;
  decltype(&ncclGetLastError) GetLastError;
  decltype(&ncclGetUniqueId) GetUniqueId;
  decltype(&ncclCommInitAll) CommInitAll;
  decltype(&ncclCommInitRank) CommInitRank;
  decltype(&ncclCommDestroy) CommDestroy;
  decltype(&ncclCommAbort) CommAbort;
  decltype(&ncclCommGetAsyncError) CommGetAsyncError;
  decltype(&ncclCommCount) CommCount;
  decltype(&ncclCommUserRank) CommUserRank;
  decltype(&ncclCommCuDevice) CommCuDevice;
  decltype(&ncclAllReduce) AllReduce;
  decltype(&ncclBroadcast) Broadcast;
  decltype(&ncclReduceScatter) ReduceScatter;
  decltype(&ncclAllGather) AllGather;
  decltype(&ncclGroupStart) GroupStart;
  decltype(&ncclGroupEnd) GroupEnd;
};

// NCCL, loaded on first use (thread-safe); nullptr with the message set
// ("<fn>: NCCL not available: ...", CUBRIDGE_ERR_DRIVER in *status) when it
// cannot be found or is too old. A failed load is retried on the next call.
const NcclApi* nccl(const char* fn, cubridge_status* status);

// Maps an NCCL result to a status and sets the message
// "<fn>: NCCL <error string>: <NCCL's last message>".
cubridge_status fail_nccl(const NcclApi* api, ncclResult_t r, const char* fn);

}  // namespace cubridge
#endif  // !CUBRIDGE_NO_CUDA

namespace cubridge {

// cubridge_nccl_set_library_path's path ("" if none); the loader reads it.
cubridge_status set_nccl_library_path(const char* path);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_NCCL_LOADER_H_
