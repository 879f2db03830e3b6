// The CUDA runtime of --@cubridge//toolchains/cuda:mode=none: a machine with no
// GPU and no driver. Device queries answer cudaErrorNoDevice, anything that
// needs a device fails the same way, and every pointer is plain host memory.
#include <cuda_runtime_api.h>
#include <string.h>

namespace {
constexpr cudaError_t kNoDevice = cudaErrorNoDevice;

// The errors this runtime returns, with CUDA's names and messages.
struct ErrorText {
  cudaError_t error;
  const char* name;
  const char* text;
};
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorNoDevice, "cudaErrorNoDevice",
     "no CUDA-capable device is detected (built without CUDA: mode=none)"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
};
constexpr ErrorText kUnknown = {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"};

const ErrorText& error_text(cudaError_t error) {
  for (const ErrorText& e : kErrors) {
    if (e.error == error) return e;
  }
  return kUnknown;
}
}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  if (count) *count = 0;
  return kNoDevice;
}
cudaError_t cudaGetDevice(int*) { return kNoDevice; }
cudaError_t cudaSetDevice(int) { return kNoDevice; }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp*, int) { return kNoDevice; }
cudaError_t cudaDeviceGetAttribute(int*, enum cudaDeviceAttr, int) { return kNoDevice; }
cudaError_t cudaDeviceSynchronize(void) { return kNoDevice; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }

const char* cudaGetErrorName(cudaError_t error) { return error_text(error).name; }
const char* cudaGetErrorString(cudaError_t error) { return error_text(error).text; }

cudaError_t cudaMalloc(void**, size_t) { return kNoDevice; }
cudaError_t cudaMallocHost(void**, size_t) { return kNoDevice; }
cudaError_t cudaMallocManaged(void**, size_t, unsigned int) { return kNoDevice; }
cudaError_t cudaFree(void* ptr) { return ptr ? kNoDevice : cudaSuccess; }
cudaError_t cudaFreeHost(void* ptr) { return ptr ? kNoDevice : cudaSuccess; }
cudaError_t cudaHostGetDevicePointer(void**, void*, unsigned int) { return kNoDevice; }
cudaError_t cudaMemGetInfo(size_t*, size_t*) { return kNoDevice; }
cudaError_t cudaMemcpy(void*, const void*, size_t, enum cudaMemcpyKind) { return kNoDevice; }
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, enum cudaMemcpyKind, cudaStream_t) {
  return kNoDevice;
}
cudaError_t cudaMemcpyPeer(void*, int, const void*, int, size_t) { return kNoDevice; }
cudaError_t cudaMemcpyPeerAsync(void*, int, const void*, int, size_t, cudaStream_t) {
  return kNoDevice;
}
cudaError_t cudaMemset(void*, int, size_t) { return kNoDevice; }
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return kNoDevice; }
cudaError_t cudaMemPrefetchAsync(const void*, size_t, struct cudaMemLocation, unsigned int,
                                 cudaStream_t) {
  return kNoDevice;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  if (!attributes) return cudaErrorInvalidValue;
  memset(attributes, 0, sizeof(*attributes));
  attributes->type = cudaMemoryTypeUnregistered;
  attributes->device = -1;
  attributes->hostPointer = const_cast<void*>(ptr);
  return cudaSuccess;
}

cudaError_t cudaMallocAsync(void**, size_t, cudaStream_t) { return kNoDevice; }
cudaError_t cudaMallocFromPoolAsync(void**, size_t, cudaMemPool_t, cudaStream_t) {
  return kNoDevice;
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) { return ptr ? kNoDevice : cudaSuccess; }
cudaError_t cudaMemPoolCreate(cudaMemPool_t*, const struct cudaMemPoolProps*) { return kNoDevice; }
cudaError_t cudaMemPoolDestroy(cudaMemPool_t) { return kNoDevice; }
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, enum cudaMemPoolAttr, void*) {
  return kNoDevice;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t, enum cudaMemPoolAttr, void*) {
  return kNoDevice;
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t) { return kNoDevice; }
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t*, int) { return kNoDevice; }

cudaError_t cudaStreamCreate(cudaStream_t*) { return kNoDevice; }
cudaError_t cudaStreamGetDevice(cudaStream_t, int*) { return kNoDevice; }
cudaError_t cudaStreamQuery(cudaStream_t) { return kNoDevice; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t*, unsigned int) { return kNoDevice; }
cudaError_t cudaStreamDestroy(cudaStream_t) { return kNoDevice; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return kNoDevice; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return kNoDevice; }
cudaError_t cudaEventCreate(cudaEvent_t*) { return kNoDevice; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t*, unsigned int) { return kNoDevice; }
cudaError_t cudaEventDestroy(cudaEvent_t) { return kNoDevice; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return kNoDevice; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return kNoDevice; }
cudaError_t cudaEventQuery(cudaEvent_t) { return kNoDevice; }
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t) { return kNoDevice; }

}  // extern "C"
