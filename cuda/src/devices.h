// Devices: the calling thread's device, a scoped guard that runs an op on the
// device of its arrays and restores the caller's, and the per-thread
// "assume device" hint of cubridge_assume_device.
#ifndef CUBRIDGE_SRC_DEVICES_H_
#define CUBRIDGE_SRC_DEVICES_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include <optional>

#include "cubridge/cubridge.h"

namespace cubridge {

// Most devices any table in the library holds (per-device caches, stats).
constexpr int kMaxDevices = 64;

// The calling thread's current device (CUDA backend).
cubridge_status current_device(const char* fn, int* device);

// OK when `device` is a valid index (CUDA: below the device count; CPU: 0),
// else INVALID_ARGUMENT "<fn>: argument '<arg>' = d is out of range (...)".
cubridge_status check_device_index(const char* fn, const char* arg, int device);

// Resolves -1 to the current device (0 on the CPU backend) and checks it.
cubridge_status resolve_device(const char* fn, const char* arg, int device, int* out);

// Makes `device` current for the guard's lifetime when it is not already;
// restores the caller's device on destruction. No-op on the CPU backend.
class DeviceGuard {
 public:
  DeviceGuard() = default;
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  ~DeviceGuard() { restore(); }
  // `device` < 0 leaves the current device alone.
  cubridge_status enter(const char* fn, int device);
  void restore();

 private:
  int prev_ = -1;  // the caller's device while switched, else -1
};

// Free and total bytes of `device` (checked), or of the calling thread's
// device when none is given; of the host's memory on the CPU backend.
cubridge_status mem_info(const char* fn, std::optional<int> device, size_t* free_bytes,
                         size_t* total_bytes);

// The device cubridge_assume_device set for the next op on this thread, or
// -1; taking it clears it.
int take_assumed_device();

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_DEVICES_H_
