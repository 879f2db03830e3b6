/* Which backend the library runs, cached in the module state. */
#include "backend.h"

#include "errors.h"

int cb_backend(cb_state* st) {
  if (st->backend < 0) {
    int b;
    cubridge_status status = cubridge_get_backend(&b);
    if (status != CUBRIDGE_OK) {
      cb_raise_status(st, status);
      return -1;
    }
    st->backend = b;
    if (cubridge_device_count(&st->device_count) != CUBRIDGE_OK) st->device_count = 0;
  }
  return st->backend;
}

int cb_on_cuda(cb_state* st) {
  int b = cb_backend(st);
  if (b < 0) PyErr_Clear();
  return b == CUBRIDGE_BACKEND_CUDA;
}
