/* The test kernels (kernels.h): their entry points call cubridge's own ops on
 * the launch's stream, which run on either backend. */
#include "kernels.h"

#include <stddef.h>

/* cubridge's ops take a cubridge_stream: a wrapper of the launch's stream. */
static cubridge_status with_stream(const cubridge_launch* l, cubridge_stream* s) {
  *s = NULL;
  return l->device < 0 ? CUBRIDGE_OK : cubridge_stream_from_handle(l->stream, s);
}

static cubridge_status saxpy(const cubridge_launch* l, const cubridge_view* x,
                             const cubridge_view* y, double a, int64_t n) {
  if (a < 0) return cubridge_launch_fail(l, CUBRIDGE_ERR_INVALID_ARGUMENT, "a = %g < 0", a);
  cubridge_stream s;
  cubridge_status st = with_stream(l, &s);
  if (st == CUBRIDGE_OK) st = cubridge_axpy(x->dtype, a, x->data, y->data, (size_t)n, s);
  if (s != NULL) cubridge_stream_destroy(s);
  return st;
}

static cubridge_status truncate_entry(const cubridge_launch* l, const cubridge_view* x,
                                      const cubridge_view* q, int64_t m, int64_t n) {
  cubridge_stream s;
  cubridge_status st = with_stream(l, &s);
  if (st == CUBRIDGE_OK)
    st = cubridge_convert(x->dtype, x->data, CUBRIDGE_INT32, q->data, (size_t)(m * n), s);
  if (s != NULL) cubridge_stream_destroy(s);
  return st;
}

static cubridge_status fill(const cubridge_launch* l, int64_t n, const cubridge_view* u,
                            double value) {
  cubridge_stream s;
  cubridge_status st = with_stream(l, &s);
  if (st == CUBRIDGE_OK) st = cubridge_fill(CUBRIDGE_FLOAT64, value, u->data, (size_t)n, s);
  if (s != NULL) cubridge_stream_destroy(s);
  return st;
}

/* ---- as cubind writes them ------------------------------------------------ */

static cubridge_status saxpy_trampoline(const cubridge_launch* l) {
  return saxpy(l, l->arrays[0], l->arrays[1], l->scalars[2].f, l->dims[0]);
}
static const char* const saxpy_dims[] = {"n"};
static const cubridge_kernel_param saxpy_params[] = {
    {"x", CUBRIDGE_PARAM_IN, (1u << 0) | (1u << 1), -1, 1, {-1}, -1},
    {"y", CUBRIDGE_PARAM_INOUT, 0u, 0, 1, {-1}, -1},
    {"a", CUBRIDGE_PARAM_FLOAT, 0u, -1, 0, {0}, -1},
};
static const cubridge_kernel saxpy_binding = {
    CUBRIDGE_BIND_VERSION, "saxpy", "y = a*x + y", "kernels.c", CUBRIDGE_HOST_STAGE,
    CUBRIDGE_RESULT_ARRAY, 3,       saxpy_params,  1,           saxpy_dims,
    saxpy_trampoline,
};
const cubridge_kernel* kt_saxpy(void) { return &saxpy_binding; }

static cubridge_status truncate_trampoline(const cubridge_launch* l) {
  return truncate_entry(l, l->arrays[0], l->arrays[1], l->dims[0], l->dims[1]);
}
static const char* const truncate_dims[] = {"m", "n"};
static const cubridge_kernel_param truncate_params[] = {
    {"x", CUBRIDGE_PARAM_IN, (1u << 0) | (1u << 1), -1, 2, {-1, -2}, -1},
    {"q", CUBRIDGE_PARAM_OUT, 1u << 2, -1, 2, {-1, -2}, -1},
};
static const cubridge_kernel truncate_binding = {
    CUBRIDGE_BIND_VERSION, "truncate", "q = int32(x)",  "kernels.c", CUBRIDGE_HOST_STAGE,
    CUBRIDGE_RESULT_ARRAY, 2,          truncate_params, 2,           truncate_dims,
    truncate_trampoline,
};
const cubridge_kernel* kt_truncate(void) { return &truncate_binding; }

static cubridge_status fill_trampoline(const cubridge_launch* l) {
  return fill(l, l->scalars[0].i, l->arrays[1], l->scalars[2].f);
}
static const char* const fill_dims[] = {"n"};
static const cubridge_kernel_param fill_params[] = {
    {"n", CUBRIDGE_PARAM_INT, 0u, -1, 0, {0}, 0},
    {"u", CUBRIDGE_PARAM_OUT, 1u << 1, -1, 1, {-1}, -1},
    {"value", CUBRIDGE_PARAM_FLOAT, 0u, -1, 0, {0}, -1},
};
static const cubridge_kernel fill_binding = {
    CUBRIDGE_BIND_VERSION, "fill", "u = value", "kernels.c", CUBRIDGE_HOST_STAGE,
    CUBRIDGE_RESULT_ARRAY, 3,      fill_params, 1,           fill_dims,
    fill_trampoline,
};
const cubridge_kernel* kt_fill(void) { return &fill_binding; }
