// C ABI of the rdc test: x[i] = rdc_scale(x[i]) + rdc_offset, on the GPU (or on
// the CPU in mode=none), with rdc_scale and rdc_offset from another library.
#ifndef CUBRIDGE_TOOLCHAINS_CUDA_TESTS_RDC_APPLY_H_
#define CUBRIDGE_TOOLCHAINS_CUDA_TESTS_RDC_APPLY_H_

#ifdef __cplusplus
extern "C" {
#endif

enum { RDC_OK = 0, RDC_NO_DEVICE = 1, RDC_CUDA_ERROR = 2 };

// Returns RDC_OK, RDC_NO_DEVICE (nothing run) or RDC_CUDA_ERROR.
int rdc_apply(float* x, int n);

#ifdef __cplusplus
}
#endif

#endif  // CUBRIDGE_TOOLCHAINS_CUDA_TESTS_RDC_APPLY_H_
