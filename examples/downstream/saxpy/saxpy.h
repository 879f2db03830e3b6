// saxpy: y = a*x + y over float32 arrays in host memory.
#ifndef DOWNSTREAM_SAXPY_SAXPY_H_
#define DOWNSTREAM_SAXPY_SAXPY_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Computes y[i] = a*x[i] + y[i]; on the GPU when one is visible, else on the
// CPU. Returns 0, or -1 when a CUDA call failed.
int saxpy(float a, const float* x, float* y, size_t n);

// "cuda" or "cpu": where saxpy runs on this machine.
const char* saxpy_backend(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // DOWNSTREAM_SAXPY_SAXPY_H_
