/* Kernels declared for cubridge's bindings, written as cubind generates them
 * (toolchains/bind), for the tests of cubridge.Kernel. */
#ifndef CUBRIDGE_GO_KERNELTEST_KERNELS_H_
#define CUBRIDGE_GO_KERNELTEST_KERNELS_H_

#include "cubridge/bind.h"

/* saxpy: in x float32|float64 [n]; inout y like x [n]; scalar a float.
 * y = a*x + y by cubridge_axpy on the launch's stream; a < 0 fails. */
const cubridge_kernel* kt_saxpy(void);

/* truncate: in x float32|float64 [m,n]; out q int32 [m,n].
 * q = int32(x), truncated, by cubridge_convert. */
const cubridge_kernel* kt_truncate(void);

/* fill: scalar n int (sizes n); out u float64 [n]; scalar value float.
 * u = value by cubridge_fill. */
const cubridge_kernel* kt_fill(void);

#endif /* CUBRIDGE_GO_KERNELTEST_KERNELS_H_ */
