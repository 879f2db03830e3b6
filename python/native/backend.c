/* Which backend the library runs, cached in the module state. */
#include "backend.h"

#include "errors.h"
#include "module.h"

int cb_backend_init(PyObject* module, cb_module* m) {
  (void)module;
  m->backend.kind = -1;
  return 0;
}

int cb_backend_kind(cb_module* m) {
  if (m->backend.kind < 0) {
    int b;
    if (cb_check(m, cubridge_get_backend(&b)) < 0) return -1;
    if (cubridge_device_count(&m->backend.device_count) != CUBRIDGE_OK) m->backend.device_count = 0;
    m->backend.kind = b;
  }
  return m->backend.kind;
}

int cb_on_cuda(cb_module* m) {
  int b = cb_backend_kind(m);
  if (b < 0) PyErr_Clear();
  return b == CUBRIDGE_BACKEND_CUDA;
}

int cb_device_count(cb_module* m) {
  if (cb_backend_kind(m) < 0) PyErr_Clear();
  return m->backend.device_count;
}
