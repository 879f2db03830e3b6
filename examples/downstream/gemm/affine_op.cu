// Device code called from another cuda_library (rdc = True).
__device__ float gemm_affine_op(float x, float scale, float shift) { return scale * x + shift; }
