// Backend selection (CUBRIDGE_BACKEND, read once) and cached device facts.
#ifndef CUBRIDGE_SRC_BACKEND_H_
#define CUBRIDGE_SRC_BACKEND_H_

#include "cubridge/cubridge.h"

namespace cubridge {

struct BackendInfo {
  int kind;                     // CUBRIDGE_BACKEND_CPU or CUBRIDGE_BACKEND_CUDA
  int device_count;             // CUDA devices visible (0 on CPU)
  cubridge_status cuda_status;  // why CUDA is unusable when kind == CUDA, else OK
  char cuda_message[256];       // message for cuda_status
};

// Chosen once, at first use, thread-safe.
const BackendInfo& backend();

inline bool on_cpu() { return backend().kind == CUBRIDGE_BACKEND_CPU; }

// On the CUDA backend: OK if GPU work can go ahead, else sets the message
// ("<fn>: ...") and returns NO_DEVICE / DRIVER / CUDA_STICKY.
cubridge_status cuda_ready(const char* fn);

// Multiprocessor count of `device` (cached; 1 if unknown).
int sm_count(int device);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_BACKEND_H_
