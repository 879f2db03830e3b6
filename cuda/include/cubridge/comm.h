/*
 * cubridge communicators: NCCL collectives over several GPUs, from one process
 * (every local device) or from many (one rank each, joined by a unique id).
 *
 * NCCL is optional. The library never links it: libnccl.so.2 is loaded at the
 * first call that needs it (dlopen), from the path given to
 * cubridge_nccl_set_library_path if any (the Python package passes the one of
 * the installed nvidia-nccl-cu13 wheel), else from the loader's default search
 * path (LD_LIBRARY_PATH, ldconfig). Without it those calls fail with
 * CUBRIDGE_ERR_DRIVER and the message "NCCL not available: ...", and the rest
 * of the library works as before. On the CPU backend they fail with
 * CUBRIDGE_ERR_NO_DEVICE ("NCCL not available on the CPU backend").
 *
 * Rules (in addition to cubridge.h's):
 *  - Collectives are asynchronous on `stream` (NULL: the comm device's default
 *    stream), like kernels. `stream` must belong to the comm's device.
 *  - Every call runs on its comm's device and restores the caller's current
 *    device. Arrays must be device-accessible memory (device, managed or
 *    pinned; cubridge's own or foreign) of that device: an array of another
 *    device or in pageable host memory is CUBRIDGE_ERR_INVALID_ARGUMENT
 *    naming the array and both devices.
 *  - A communicator is used by one thread at a time. Several comms of one
 *    process (cubridge_comm_init_all) are driven either from one thread per
 *    comm, or from one thread inside cubridge_comm_group_start/end (else the
 *    collective would wait forever for the others).
 *  - NCCL errors become cubridge statuses: bad arguments INVALID_ARGUMENT,
 *    NCCL's internal errors INTERNAL, CUDA, system and remote failures CUDA
 *    (they are outside cubridge, as a failing kernel is); the message
 *    carries NCCL's own ("<fn>: NCCL <error>: <last NCCL message>").
 */
#ifndef CUBRIDGE_COMM_H_
#define CUBRIDGE_COMM_H_

#include "cubridge/cubridge.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cubridge_comm_s* cubridge_comm;

/* NCCL's ncclUniqueId, byte for byte: made by one rank, sent to the others by
 * any means (a file, a socket, MPI), used by all to join one communicator. */
#define CUBRIDGE_COMM_UNIQUE_ID_BYTES 128
typedef struct cubridge_comm_unique_id {
  unsigned char bytes[CUBRIDGE_COMM_UNIQUE_ID_BYTES];
} cubridge_comm_unique_id;

/* Reductions, numbered as NCCL numbers them. */
typedef enum cubridge_reduce_op {
  CUBRIDGE_REDUCE_SUM = 0,
  CUBRIDGE_REDUCE_PROD = 1,
  CUBRIDGE_REDUCE_MAX = 2,
  CUBRIDGE_REDUCE_MIN = 3
} cubridge_reduce_op;

/* Name of a reduction ("sum", "prod", "max", "min") or NULL if unknown. */
CUBRIDGE_API const char* cubridge_reduce_op_name(int op);

/* ---- NCCL itself ------------------------------------------------------ */

/* The libnccl.so.2 to try before the default search path (NULL or "": none).
 * Only takes effect before NCCL is loaded; afterwards INVALID_ARGUMENT if it
 * names another file than the one loaded. */
CUBRIDGE_API cubridge_status cubridge_nccl_set_library_path(const char* path);

/* Loads NCCL if needed; its version code (2.28.9 -> 22809). Works on either
 * backend (no device is touched): tells whether NCCL can be found. */
CUBRIDGE_API cubridge_status cubridge_nccl_version(int* version);

/* ---- communicators ---------------------------------------------------- */

/* A new unique id (ncclGetUniqueId) for cubridge_comm_init_rank. */
CUBRIDGE_API cubridge_status cubridge_comm_unique_id_create(cubridge_comm_unique_id* id);

/* One communicator per device of `devices[0..ndev)` (distinct, valid), all in
 * this process (ncclCommInitAll): comms[i] is rank i, on devices[i].
 * `devices` NULL means devices 0..ndev-1. On failure no comm is left. */
CUBRIDGE_API cubridge_status cubridge_comm_init_all(int ndev, const int* devices,
                                                    cubridge_comm* comms);

/* This process's rank `rank` of `nranks` (ncclCommInitRank) on `device` (-1:
 * the calling thread's device). Blocks until every rank has joined. */
CUBRIDGE_API cubridge_status cubridge_comm_init_rank(const cubridge_comm_unique_id* id, int nranks,
                                                     int rank, int device, cubridge_comm* comm);

/* Waits for the comm's queued work, then frees it. NULL is a no-op. */
CUBRIDGE_API cubridge_status cubridge_comm_destroy(cubridge_comm comm);

/* Frees the comm without waiting for its queued work (ncclCommAbort): this
 * rank's collectives still pending on the GPU end early, with undefined
 * results, and the streams they were queued on go on. The way out when a peer
 * died or hangs, which would otherwise leave those collectives, and a
 * cubridge_comm_destroy, waiting forever. Every rank's comm is then unusable:
 * the others abort or destroy theirs. NULL is a no-op. Not to be called while
 * another thread is inside a call on `comm` (the calls return once their work
 * is queued; it is the queued work that waits for a peer). */
CUBRIDGE_API cubridge_status cubridge_comm_abort(cubridge_comm comm);

/* NCCL's asynchronous error on `comm` (ncclCommGetAsyncError): CUBRIDGE_OK
 * while there is none, else the status a collective would fail with and the
 * message "cubridge_comm_async_error: NCCL <error>: <NCCL's message>" (a
 * remote or network failure is CUBRIDGE_ERR_CUDA, as in the rules above).
 * NCCL reports what its proxy threads see (network and remote failures); a
 * peer that stops calling collectives over NVLink or PCIe is not an error
 * there, only work that never finishes: poll the stream with a deadline, then
 * cubridge_comm_abort. */
CUBRIDGE_API cubridge_status cubridge_comm_async_error(cubridge_comm comm);

/* Rank, number of ranks and device of `comm`; any pointer may be NULL. */
CUBRIDGE_API cubridge_status cubridge_comm_info(cubridge_comm comm, int* rank, int* nranks,
                                                int* device);

/* ---- collectives -----------------------------------------------------
 * `count` is in elements of `dtype`. In-place use (send == recv, and for
 * all_gather / reduce_scatter the rank's own slice of recv) is allowed as
 * NCCL allows it. count == 0 does nothing (pointers may then be NULL). */

/* recv[i] = op over ranks of send[i], on every rank; count elements. */
CUBRIDGE_API cubridge_status cubridge_comm_all_reduce(cubridge_comm comm, int dtype,
                                                      const void* send, void* recv, size_t count,
                                                      int op, cubridge_stream stream);

/* recv = root's send, on every rank (send is read on root only and may be
 * NULL elsewhere). */
CUBRIDGE_API cubridge_status cubridge_comm_broadcast(cubridge_comm comm, int dtype,
                                                     const void* send, void* recv, size_t count,
                                                     int root, cubridge_stream stream);

/* send holds nranks * recv_count elements; rank r gets the op over ranks of
 * slice r into recv (recv_count elements). */
CUBRIDGE_API cubridge_status cubridge_comm_reduce_scatter(cubridge_comm comm, int dtype,
                                                          const void* send, void* recv,
                                                          size_t recv_count, int op,
                                                          cubridge_stream stream);

/* recv (nranks * send_count elements) = every rank's send, in rank order. */
CUBRIDGE_API cubridge_status cubridge_comm_all_gather(cubridge_comm comm, int dtype,
                                                      const void* send, void* recv,
                                                      size_t send_count, cubridge_stream stream);

/* The collectives, for cubridge_comm_check. */
typedef enum cubridge_collective {
  CUBRIDGE_ALL_REDUCE = 0,
  CUBRIDGE_BROADCAST = 1,
  CUBRIDGE_REDUCE_SCATTER = 2,
  CUBRIDGE_ALL_GATHER = 3
} cubridge_collective;

/* Checks one collective's arguments as its own function does (the same
 * statuses and messages, `count` and `op_or_root` as that function takes
 * them) and launches nothing. In a group, a rank refused after the others
 * were queued leaves them waiting for it forever: check every rank first. */
CUBRIDGE_API cubridge_status cubridge_comm_check(int collective, cubridge_comm comm, int dtype,
                                                 const void* send, const void* recv, size_t count,
                                                 int op_or_root, cubridge_stream stream);

/* Collectives between start and end (on this thread) are launched together:
 * needed when one thread drives several comms. Groups nest; a failed call
 * inside a group still needs its end. */
CUBRIDGE_API cubridge_status cubridge_comm_group_start(void);
CUBRIDGE_API cubridge_status cubridge_comm_group_end(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CUBRIDGE_COMM_H_ */
