// cubridge communicators (cubridge/comm.h): NCCL collectives, each on its
// comm's device, with the arrays checked against that device first.
#include <cuda_runtime_api.h>
#include <string.h>

#include <new>

#include "backend.h"
#include "checks.h"
#include "cubridge/comm.h"
#include "dtypes.h"
#include "nccl_loader.h"
#include "pointers.h"
#include "status.h"
#include "streams.h"

using namespace cubridge;

extern "C" CUBRIDGE_API const char* cubridge_reduce_op_name(int op) {
  switch (op) {
    case CUBRIDGE_REDUCE_SUM:
      return "sum";
    case CUBRIDGE_REDUCE_PROD:
      return "prod";
    case CUBRIDGE_REDUCE_MAX:
      return "max";
    case CUBRIDGE_REDUCE_MIN:
      return "min";
    default:
      return nullptr;
  }
}

extern "C" CUBRIDGE_API cubridge_status cubridge_nccl_set_library_path(const char* path) {
  clear_error();
  return set_nccl_library_path(path);
}

#if defined(CUBRIDGE_NO_CUDA)
// A build without CUDA (mode=none) has no NCCL: every call says so.

extern "C" {

CUBRIDGE_API cubridge_status cubridge_nccl_version(int* version) {
  clear_error();
  if (!version) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "cubridge_nccl_version: argument 'version' is NULL");
  }
  *version = 0;
  return fail(CUBRIDGE_ERR_DRIVER,
              "cubridge_nccl_version: NCCL not available: this build of cubridge has no CUDA");
}

#define CUBRIDGE_NO_NCCL(fn) \
  (clear_error(), fail(CUBRIDGE_ERR_NO_DEVICE, "%s: NCCL not available on the CPU backend", fn))

CUBRIDGE_API cubridge_status cubridge_comm_unique_id_create(cubridge_comm_unique_id*) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_unique_id_create");
}
CUBRIDGE_API cubridge_status cubridge_comm_init_all(int, const int*, cubridge_comm*) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_init_all");
}
CUBRIDGE_API cubridge_status cubridge_comm_init_rank(const cubridge_comm_unique_id*, int, int, int,
                                                     cubridge_comm*) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_init_rank");
}
CUBRIDGE_API cubridge_status cubridge_comm_destroy(cubridge_comm comm) {
  clear_error();
  return comm == nullptr ? CUBRIDGE_OK : CUBRIDGE_NO_NCCL("cubridge_comm_destroy");
}
CUBRIDGE_API cubridge_status cubridge_comm_abort(cubridge_comm comm) {
  clear_error();
  return comm == nullptr ? CUBRIDGE_OK : CUBRIDGE_NO_NCCL("cubridge_comm_abort");
}
CUBRIDGE_API cubridge_status cubridge_comm_async_error(cubridge_comm comm) {
  clear_error();
  if (comm == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "cubridge_comm_async_error: argument 'comm' is NULL");
  }
  return CUBRIDGE_NO_NCCL("cubridge_comm_async_error");
}
CUBRIDGE_API cubridge_status cubridge_comm_info(cubridge_comm comm, int*, int*, int*) {
  clear_error();
  if (comm == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "cubridge_comm_info: argument 'comm' is NULL");
  }
  return CUBRIDGE_NO_NCCL("cubridge_comm_info");
}
CUBRIDGE_API cubridge_status cubridge_comm_all_reduce(cubridge_comm, int, const void*, void*,
                                                      size_t, int, cubridge_stream) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_all_reduce");
}
CUBRIDGE_API cubridge_status cubridge_comm_broadcast(cubridge_comm, int, const void*, void*, size_t,
                                                     int, cubridge_stream) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_broadcast");
}
CUBRIDGE_API cubridge_status cubridge_comm_reduce_scatter(cubridge_comm, int, const void*, void*,
                                                          size_t, int, cubridge_stream) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_reduce_scatter");
}
CUBRIDGE_API cubridge_status cubridge_comm_all_gather(cubridge_comm, int, const void*, void*,
                                                      size_t, cubridge_stream) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_all_gather");
}
CUBRIDGE_API cubridge_status cubridge_comm_check(int collective, cubridge_comm, int, const void*,
                                                 const void*, size_t, int, cubridge_stream) {
  // A check speaks for the collective it checks, as in the CUDA build.
  static const char* const kNames[] = {"cubridge_comm_all_reduce", "cubridge_comm_broadcast",
                                       "cubridge_comm_reduce_scatter", "cubridge_comm_all_gather"};
  return CUBRIDGE_NO_NCCL(collective >= 0 && collective < 4 ? kNames[collective]
                                                            : "cubridge_comm_check");
}
CUBRIDGE_API cubridge_status cubridge_comm_group_start(void) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_group_start");
}
CUBRIDGE_API cubridge_status cubridge_comm_group_end(void) {
  return CUBRIDGE_NO_NCCL("cubridge_comm_group_end");
}

}  // extern "C"

#else  // CUDA build

struct cubridge_comm_s {
  ncclComm_t comm;
  int rank;
  int nranks;
  int device;
};

namespace {

static_assert(sizeof(ncclUniqueId) == CUBRIDGE_COMM_UNIQUE_ID_BYTES,
              "cubridge_comm_unique_id must hold an ncclUniqueId");

// Makes `device` current for the scope and restores the caller's device.
class DeviceScope {
 public:
  ~DeviceScope() {
    if (prev_ >= 0) (void)cudaSetDevice(prev_);
  }
  cubridge_status enter(const char* fn, int device) {
    int current = 0;
    CUBRIDGE_CUDA(fn, cudaGetDevice(&current));
    if (current != device) {
      CUBRIDGE_CUDA(fn, cudaSetDevice(device));
      prev_ = current;
    }
    return CUBRIDGE_OK;
  }

 private:
  int prev_ = -1;
};

// NCCL, or why not: the CPU backend, a CUDA backend without a usable device,
// or no loadable libnccl.so.2.
cubridge_status ready(const char* fn, const NcclApi** api) {
  clear_error();
  if (on_cpu()) {
    return fail(CUBRIDGE_ERR_NO_DEVICE, "%s: NCCL not available on the CPU backend", fn);
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  cubridge_status status = CUBRIDGE_OK;
  *api = nccl(fn, &status);
  return *api ? CUBRIDGE_OK : status;
}

// Frees `comm`: ncclCommDestroy (waits for its queued work) or, with
// `abort`, ncclCommAbort (ends that work early). NULL is a no-op.
cubridge_status end_comm(const char* fn, cubridge_comm comm, bool abort) {
  clear_error();
  if (comm == nullptr) return CUBRIDGE_OK;
  const NcclApi* api = nullptr;
  cubridge_status status = ready(fn, &api);
  ncclResult_t r = ncclSuccess;
  if (status == CUBRIDGE_OK) {
    DeviceScope scope;
    status = scope.enter(fn, comm->device);
    if (status == CUBRIDGE_OK)
      r = abort ? api->CommAbort(comm->comm) : api->CommDestroy(comm->comm);
  }
  // Gone either way (the front ends have forgotten it): NCCL frees what it can.
  delete comm;
  if (status != CUBRIDGE_OK) return status;
  return r == ncclSuccess ? CUBRIDGE_OK : fail_nccl(api, r, fn);
}

cubridge_status check_comm(const char* fn, cubridge_comm comm) {
  if (comm == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'comm' is NULL", fn);
  }
  return CUBRIDGE_OK;
}

ncclDataType_t nccl_dtype(int dtype) {
  switch (dtype) {
    case CUBRIDGE_FLOAT32:
      return ncclFloat32;
    case CUBRIDGE_FLOAT64:
      return ncclFloat64;
    case CUBRIDGE_INT32:
      return ncclInt32;
    case CUBRIDGE_INT64:
      return ncclInt64;
    case CUBRIDGE_FLOAT16:
      return ncclFloat16;
    default:
      return ncclBfloat16;
  }
}

cubridge_status check_op(const char* fn, int op) {
  if (cubridge_reduce_op_name(op) != nullptr) return CUBRIDGE_OK;
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: argument 'op' = %d is not a reduction (sum 0, prod 1, max 2, min 3)", fn, op);
}

// The array `name` (bytes long) must be device-accessible memory usable on
// the comm's device: that device's memory, managed or pinned memory.
cubridge_status check_array(const char* fn, const char* name, const void* p, size_t elems,
                            size_t bytes, const cubridge_comm_s* c) {
  CUBRIDGE_TRY(check_not_null(fn, name, p, elems));
  if (bytes == 0) return CUBRIDGE_OK;
  PtrInfo info;
  CUBRIDGE_TRY(query_pointer(fn, name, p, &info));
  switch (info.loc) {
    case Loc::kPageable:
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' is pageable host memory; NCCL needs memory of the "
                  "communicator's device %d (device, managed or pinned)",
                  fn, name, c->device);
    case Loc::kDevice:
      if (info.device != c->device) {
        return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                    "%s: argument '%s' is on device %d, the communicator (rank %d) is on device %d",
                    fn, name, info.device, c->rank, c->device);
      }
      return CUBRIDGE_OK;
    default:  // managed and pinned memory are reachable from every device
      return CUBRIDGE_OK;
  }
}

// `stream` (NULL: the device's default stream) must belong to the comm's device.
cubridge_status check_stream(const char* fn, cubridge_stream stream, const cubridge_comm_s* c) {
  cudaStream_t s = raw_stream(stream);
  if (s == nullptr) return CUBRIDGE_OK;
  int device = -1;
  CUBRIDGE_CUDA(fn, stream_device(s, &device));
  if (device != c->device) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'stream' belongs to device %d, the communicator (rank %d) is on "
                "device %d",
                fn, device, c->rank, c->device);
  }
  return CUBRIDGE_OK;
}

// The smaller array [small, + small_bytes) (named `small_name`) must be
// disjoint from the larger one [large, + large_bytes), or start exactly at
// `in_place` (the position NCCL allows for in-place use).
cubridge_status check_in_place(const char* fn, const char* small_name, const void* small,
                               size_t small_bytes, const char* large_name, const void* large,
                               size_t large_bytes, const void* in_place) {
  if (small_bytes == 0 || large_bytes == 0) return CUBRIDGE_OK;
  uintptr_t s0 = reinterpret_cast<uintptr_t>(small), l0 = reinterpret_cast<uintptr_t>(large);
  if (s0 + small_bytes <= l0 || l0 + large_bytes <= s0) return CUBRIDGE_OK;
  if (small == in_place) return CUBRIDGE_OK;
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: arguments '%s' and '%s' overlap but not in place (%s must be disjoint from "
              "%s, or be exactly this rank's part of it)",
              fn, small_name, large_name, small_name, large_name);
}

// Checks shared by the collectives: comm, dtype, sizes, arrays and stream.
// `send_elems` / `recv_elems` are the elements each array holds on this rank.
struct Call {
  const char* fn;
  bool launch;  // false: check the arguments only (cubridge_comm_check)
  const NcclApi* api;
  size_t size;  // bytes per element
};

cubridge_status begin(Call* call, cubridge_comm comm, int dtype, const void* send,
                      size_t send_elems, const void* recv, size_t recv_elems, size_t count,
                      cubridge_stream stream, bool send_needed) {
  const char* fn = call->fn;
  CUBRIDGE_TRY(ready(fn, &call->api));
  CUBRIDGE_TRY(check_comm(fn, comm));
  CUBRIDGE_TRY(check_dtype(fn, "dtype", dtype));
  call->size = dtype_size(dtype);
  CUBRIDGE_TRY(check_length(fn, count, call->size));
  CUBRIDGE_TRY(check_length(fn, send_elems, call->size));
  CUBRIDGE_TRY(check_length(fn, recv_elems, call->size));
  if (send_needed) {
    CUBRIDGE_TRY(check_array(fn, "send", send, send_elems, send_elems * call->size, comm));
  }
  CUBRIDGE_TRY(check_array(fn, "recv", recv, recv_elems, recv_elems * call->size, comm));
  return check_stream(fn, stream, comm);
}

// Runs `nccl_call` (one NCCL collective) on the communicator's device, unless
// there are no elements to move.
template <class F>
cubridge_status enqueue(const Call& call, cubridge_comm comm, size_t count, F nccl_call) {
  if (count == 0 || !call.launch) return CUBRIDGE_OK;
  DeviceScope scope;
  CUBRIDGE_TRY(scope.enter(call.fn, comm->device));
  ncclResult_t r = nccl_call();
  return r == ncclSuccess ? CUBRIDGE_OK : fail_nccl(call.api, r, call.fn);
}

// Elements in nranks chunks of `chunk` (SIZE_MAX on overflow: begin refuses it).
size_t all_chunks(cubridge_comm comm, size_t chunk) {
  const size_t nranks = comm ? static_cast<size_t>(comm->nranks) : 1;
  return chunk <= SIZE_MAX / nranks ? chunk * nranks : SIZE_MAX;
}

// ncclGroupStart (start) or ncclGroupEnd, reported as fn.
cubridge_status group_call(const char* fn, bool start) {
  const NcclApi* api;
  CUBRIDGE_TRY(ready(fn, &api));
  ncclResult_t r = start ? api->GroupStart() : api->GroupEnd();
  return r == ncclSuccess ? CUBRIDGE_OK : fail_nccl(api, r, fn);
}

cubridge_status all_reduce(Call call, cubridge_comm comm, int dtype, const void* send, void* recv,
                           size_t count, int op, cubridge_stream stream) {
  CUBRIDGE_TRY(begin(&call, comm, dtype, send, count, recv, count, count, stream, true));
  CUBRIDGE_TRY(check_op(call.fn, op));
  CUBRIDGE_TRY(check_in_place(call.fn, "send", send, count * call.size, "recv", recv,
                              count * call.size, recv));
  return enqueue(call, comm, count, [&] {
    return call.api->AllReduce(send, recv, count, nccl_dtype(dtype), static_cast<ncclRedOp_t>(op),
                               comm->comm, raw_stream(stream));
  });
}

cubridge_status broadcast(Call call, cubridge_comm comm, int dtype, const void* send, void* recv,
                          size_t count, int root, cubridge_stream stream) {
  if (comm != nullptr && (root < 0 || root >= comm->nranks)) {
    clear_error();
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'root' = %d must be in [0, nranks = %d)", call.fn, root,
                comm->nranks);
  }
  const bool is_root = comm != nullptr && comm->rank == root;
  CUBRIDGE_TRY(begin(&call, comm, dtype, send, count, recv, count, count, stream, is_root));
  if (is_root) {
    CUBRIDGE_TRY(check_in_place(call.fn, "send", send, count * call.size, "recv", recv,
                                count * call.size, recv));
  }
  return enqueue(call, comm, count, [&] {
    return call.api->Broadcast(is_root ? send : recv, recv, count, nccl_dtype(dtype), root,
                               comm->comm, raw_stream(stream));
  });
}

cubridge_status reduce_scatter(Call call, cubridge_comm comm, int dtype, const void* send,
                               void* recv, size_t recv_count, int op, cubridge_stream stream) {
  const size_t send_elems = all_chunks(comm, recv_count);
  CUBRIDGE_TRY(
      begin(&call, comm, dtype, send, send_elems, recv, recv_count, recv_count, stream, true));
  CUBRIDGE_TRY(check_op(call.fn, op));
  const void* in_place = static_cast<const char*>(send) + comm->rank * recv_count * call.size;
  CUBRIDGE_TRY(check_in_place(call.fn, "recv", recv, recv_count * call.size, "send", send,
                              send_elems * call.size, in_place));
  return enqueue(call, comm, recv_count, [&] {
    return call.api->ReduceScatter(send, recv, recv_count, nccl_dtype(dtype),
                                   static_cast<ncclRedOp_t>(op), comm->comm, raw_stream(stream));
  });
}

cubridge_status all_gather(Call call, cubridge_comm comm, int dtype, const void* send, void* recv,
                           size_t send_count, cubridge_stream stream) {
  const size_t recv_elems = all_chunks(comm, send_count);
  CUBRIDGE_TRY(
      begin(&call, comm, dtype, send, send_count, recv, recv_elems, send_count, stream, true));
  const void* in_place = static_cast<const char*>(recv) + comm->rank * send_count * call.size;
  CUBRIDGE_TRY(check_in_place(call.fn, "send", send, send_count * call.size, "recv", recv,
                              recv_elems * call.size, in_place));
  return enqueue(call, comm, send_count, [&] {
    return call.api->AllGather(send, recv, send_count, nccl_dtype(dtype), comm->comm,
                               raw_stream(stream));
  });
}

}  // namespace

extern "C" {

CUBRIDGE_API cubridge_status cubridge_nccl_version(int* version) {
  clear_error();
  if (!version) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "cubridge_nccl_version: argument 'version' is NULL");
  }
  *version = 0;
  cubridge_status status = CUBRIDGE_OK;
  const NcclApi* api = nccl("cubridge_nccl_version", &status);
  if (api == nullptr) return status;
  *version = api->version;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_comm_unique_id_create(cubridge_comm_unique_id* id) {
  const char* fn = "cubridge_comm_unique_id_create";
  const NcclApi* api;
  CUBRIDGE_TRY(ready(fn, &api));
  if (!id) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'id' is NULL", fn);
  ncclUniqueId uid;
  ncclResult_t r = api->GetUniqueId(&uid);
  if (r != ncclSuccess) return fail_nccl(api, r, fn);
  memcpy(id->bytes, &uid, sizeof uid);
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_comm_init_all(int ndev, const int* devices,
                                                    cubridge_comm* comms) {
  const char* fn = "cubridge_comm_init_all";
  const NcclApi* api;
  CUBRIDGE_TRY(ready(fn, &api));
  if (!comms) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'comms' is NULL", fn);
  const int count = backend().device_count;
  if (ndev < 1 || ndev > count) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'ndev' = %d must be between 1 and the %d visible device(s)", fn, ndev,
                count);
  }
  int devs[64];
  if (ndev > 64) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: more than 64 devices", fn);
  for (int i = 0; i < ndev; ++i) {
    devs[i] = devices ? devices[i] : i;
    if (devs[i] < 0 || devs[i] >= count) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: devices[%d] = %d is not a device (%d visible)", fn, i, devs[i], count);
    }
    for (int j = 0; j < i; ++j) {
      if (devs[j] == devs[i]) {
        return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: device %d is listed twice", fn, devs[i]);
      }
    }
  }
  ncclComm_t raw[64];
  cubridge_comm_s* wrapped[64] = {};
  for (int i = 0; i < ndev; ++i) {
    wrapped[i] = new (std::nothrow) cubridge_comm_s{nullptr, i, ndev, devs[i]};
    if (wrapped[i] == nullptr) {
      for (int j = 0; j < i; ++j) delete wrapped[j];
      return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
  }
  ncclResult_t r;
  {
    DeviceScope scope;  // NCCL switches devices while it sets up
    CUBRIDGE_TRY(scope.enter(fn, devs[0]));
    r = api->CommInitAll(raw, ndev, devs);
  }
  if (r != ncclSuccess) {
    for (int i = 0; i < ndev; ++i) delete wrapped[i];
    return fail_nccl(api, r, fn);
  }
  for (int i = 0; i < ndev; ++i) {
    wrapped[i]->comm = raw[i];
    comms[i] = wrapped[i];
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_comm_init_rank(const cubridge_comm_unique_id* id, int nranks,
                                                     int rank, int device, cubridge_comm* comm) {
  const char* fn = "cubridge_comm_init_rank";
  const NcclApi* api;
  CUBRIDGE_TRY(ready(fn, &api));
  if (!id) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'id' is NULL", fn);
  if (!comm) return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'comm' is NULL", fn);
  if (nranks < 1) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'nranks' = %d must be at least 1", fn,
                nranks);
  }
  if (rank < 0 || rank >= nranks) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'rank' = %d must be in [0, nranks = %d)", fn, rank, nranks);
  }
  const int count = backend().device_count;
  if (device == -1) CUBRIDGE_CUDA(fn, cudaGetDevice(&device));
  if (device < 0 || device >= count) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'device' = %d is not a device (%d visible)", fn, device, count);
  }
  auto* c = new (std::nothrow) cubridge_comm_s{nullptr, rank, nranks, device};
  if (c == nullptr) return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ncclUniqueId uid;
  memcpy(&uid, id->bytes, sizeof uid);
  ncclResult_t r;
  {
    DeviceScope scope;
    cubridge_status st = scope.enter(fn, device);
    if (st != CUBRIDGE_OK) {
      delete c;
      return st;
    }
    r = api->CommInitRank(&c->comm, nranks, uid, rank);
  }
  if (r != ncclSuccess) {
    delete c;
    return fail_nccl(api, r, fn);
  }
  *comm = c;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_comm_destroy(cubridge_comm comm) {
  return end_comm("cubridge_comm_destroy", comm, false);
}

CUBRIDGE_API cubridge_status cubridge_comm_abort(cubridge_comm comm) {
  return end_comm("cubridge_comm_abort", comm, true);
}

CUBRIDGE_API cubridge_status cubridge_comm_async_error(cubridge_comm comm) {
  const char* fn = "cubridge_comm_async_error";
  clear_error();
  CUBRIDGE_TRY(check_comm(fn, comm));  // NULL is refused on every backend, as in cubridge_comm_info
  const NcclApi* api = nullptr;
  CUBRIDGE_TRY(ready(fn, &api));
  ncclResult_t async = ncclSuccess;
  ncclResult_t r = api->CommGetAsyncError(comm->comm, &async);
  if (r != ncclSuccess) return fail_nccl(api, r, fn);
  return async == ncclSuccess ? CUBRIDGE_OK : fail_nccl(api, async, fn);
}

CUBRIDGE_API cubridge_status cubridge_comm_info(cubridge_comm comm, int* rank, int* nranks,
                                                int* device) {
  const char* fn = "cubridge_comm_info";
  clear_error();
  CUBRIDGE_TRY(check_comm(fn, comm));
  if (rank) *rank = comm->rank;
  if (nranks) *nranks = comm->nranks;
  if (device) *device = comm->device;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_comm_all_reduce(cubridge_comm comm, int dtype,
                                                      const void* send, void* recv, size_t count,
                                                      int op, cubridge_stream stream) {
  return all_reduce({"cubridge_comm_all_reduce", true}, comm, dtype, send, recv, count, op, stream);
}

CUBRIDGE_API cubridge_status cubridge_comm_broadcast(cubridge_comm comm, int dtype,
                                                     const void* send, void* recv, size_t count,
                                                     int root, cubridge_stream stream) {
  return broadcast({"cubridge_comm_broadcast", true}, comm, dtype, send, recv, count, root, stream);
}

CUBRIDGE_API cubridge_status cubridge_comm_reduce_scatter(cubridge_comm comm, int dtype,
                                                          const void* send, void* recv,
                                                          size_t recv_count, int op,
                                                          cubridge_stream stream) {
  return reduce_scatter({"cubridge_comm_reduce_scatter", true}, comm, dtype, send, recv, recv_count,
                        op, stream);
}

CUBRIDGE_API cubridge_status cubridge_comm_all_gather(cubridge_comm comm, int dtype,
                                                      const void* send, void* recv,
                                                      size_t send_count, cubridge_stream stream) {
  return all_gather({"cubridge_comm_all_gather", true}, comm, dtype, send, recv, send_count,
                    stream);
}

CUBRIDGE_API cubridge_status cubridge_comm_check(int collective, cubridge_comm comm, int dtype,
                                                 const void* send, const void* recv, size_t count,
                                                 int op_or_root, cubridge_stream stream) {
  void* out = const_cast<void*>(recv);  // checked, never written
  switch (collective) {
    case CUBRIDGE_ALL_REDUCE:
      return all_reduce({"cubridge_comm_all_reduce", false}, comm, dtype, send, out, count,
                        op_or_root, stream);
    case CUBRIDGE_BROADCAST:
      return broadcast({"cubridge_comm_broadcast", false}, comm, dtype, send, out, count,
                       op_or_root, stream);
    case CUBRIDGE_REDUCE_SCATTER:
      return reduce_scatter({"cubridge_comm_reduce_scatter", false}, comm, dtype, send, out, count,
                            op_or_root, stream);
    case CUBRIDGE_ALL_GATHER:
      return all_gather({"cubridge_comm_all_gather", false}, comm, dtype, send, out, count, stream);
    default:
      clear_error();
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "cubridge_comm_check: argument 'collective' = %d is not a collective",
                  collective);
  }
}

CUBRIDGE_API cubridge_status cubridge_comm_group_start(void) {
  return group_call("cubridge_comm_group_start", true);
}

CUBRIDGE_API cubridge_status cubridge_comm_group_end(void) {
  return group_call("cubridge_comm_group_end", false);
}

}  // extern "C"

#endif  // CUBRIDGE_NO_CUDA
