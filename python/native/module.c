/* cubridge._native: the module definition (multi-phase init, PEP 489).
 *
 * Each part of the module adds itself from the table cb_parts below: a part is
 * a file with an init function `int f(PyObject* module, cb_state* st)`. A new
 * part (a new file of functions or types) is one include and one table row. */
#include "array_type.h"
#include "comm.h"
#include "errors.h"
#include "graph.h"
#include "info.h"
#include "ops.h"
#include "state.h"

typedef int (*cb_part_init)(PyObject* module, cb_state* st);

/* In order: later parts may use what earlier ones made (the exception classes,
 * the Array type). */
static const cb_part_init cb_parts[] = {
    cb_errors_init, cb_array_type_init, cb_info_init, cb_ops_init, cb_comm_init, cb_graph_init,
};

static int cb_exec(PyObject* module) {
  cb_state* st = cb_state_of_module(module);
  if (cb_state_init(st) < 0) return -1;
  for (size_t i = 0; i < sizeof cb_parts / sizeof cb_parts[0]; i++) {
    if (cb_parts[i](module, st) < 0) return -1;
  }
  return 0;
}

static int cb_traverse(PyObject* module, visitproc visit, void* arg) {
  return cb_state_traverse(cb_state_of_module(module), visit, arg);
}

static int cb_clear(PyObject* module) {
  cb_state_clear(cb_state_of_module(module));
  return 0;
}

static void cb_free(void* module) { cb_clear((PyObject*)module); }

static PyModuleDef_Slot cb_slots[] = {{Py_mod_exec, cb_exec}, {0, NULL}};

static struct PyModuleDef cb_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cubridge._native",
    .m_doc = "cubridge's kernels as a CPython extension (limited API).",
    .m_size = sizeof(cb_state),
    .m_slots = cb_slots,
    .m_traverse = cb_traverse,
    .m_clear = cb_clear,
    .m_free = cb_free,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&cb_module); }
