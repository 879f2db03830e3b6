// Device code used from another file and another cuda_library (rdc = True).
__device__ float rdc_scale(float x) { return 2.0f * x; }

__device__ float rdc_offset = 1.0f;
