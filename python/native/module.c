/* cubridge._native: the module definition (multi-phase init, PEP 489).
 *
 * Each unit of the module is a row of cb_units: how it makes its part of the
 * state and adds its functions or types, how the collector visits its
 * references, how it clears them. Rows run in order at init (later units use
 * what earlier ones made: the exception classes, the dtypes, the names) and
 * in reverse order at clear. When the module is freed, the library releases
 * every cache it keeps (cubridge_shutdown). A new unit is one row. */
#include "module.h"

#include "array_type.h"
#include "comm.h"
#include "info.h"
#include "kernels.h"
#include "ops.h"

typedef struct cb_unit {
  int (*init)(PyObject* module, cb_module* m);
  int (*traverse)(cb_module* m, visitproc visit, void* arg); /* NULL: no references */
  void (*clear)(cb_module* m);                               /* NULL: nothing to clear */
} cb_unit;

static const cb_unit cb_units[] = {
    {cb_errors_init, cb_errors_traverse, cb_errors_clear},
    {cb_dtypes_init, cb_dtypes_traverse, cb_dtypes_clear},
    {cb_names_init, cb_names_traverse, cb_names_clear},
    {cb_keywords_init, cb_keywords_traverse, cb_keywords_clear},
    {cb_backend_init, NULL, NULL},
    {cb_arrays_init, cb_arrays_traverse, cb_arrays_clear},
    {NULL, cb_types_traverse, cb_types_clear},
    {NULL, cb_numpy_traverse, cb_numpy_clear},
    {NULL, cb_torch_traverse, cb_torch_clear},
    {NULL, cb_cupy_traverse, cb_cupy_clear},
    {cb_graph_init, cb_graph_traverse, cb_graph_clear},
    {cb_info_init, NULL, NULL},
    {cb_ops_init, NULL, NULL},
    {cb_kernels_init, NULL, NULL},
    {cb_comm_init, NULL, NULL},
};
#define CB_NUM_UNITS (sizeof cb_units / sizeof cb_units[0])

cb_module* cb_module_of_type(PyTypeObject* type) { return (cb_module*)PyType_GetModuleState(type); }

static int cb_exec(PyObject* module) {
  cb_module* m = cb_module_of(module);
  for (size_t i = 0; i < CB_NUM_UNITS; i++) {
    if (cb_units[i].init != NULL && cb_units[i].init(module, m) < 0) return -1;
  }
  return 0;
}

static int cb_traverse(PyObject* module, visitproc visit, void* arg) {
  cb_module* m = cb_module_of(module);
  for (size_t i = 0; m != NULL && i < CB_NUM_UNITS; i++) {
    int rc = cb_units[i].traverse != NULL ? cb_units[i].traverse(m, visit, arg) : 0;
    if (rc != 0) return rc;
  }
  return 0;
}

static int cb_clear(PyObject* module) {
  cb_module* m = cb_module_of(module);
  for (size_t i = CB_NUM_UNITS; m != NULL && i-- > 0;) {
    if (cb_units[i].clear != NULL) cb_units[i].clear(m);
  }
  return 0;
}

static void cb_free(void* module) {
  cb_clear((PyObject*)module);
  /* The library's caches (the pools' blocks, staging, scratch) go with the
   * module: a leak checker at exit sees none of them. Arrays still alive are
   * freed later as usual, and the caches would grow again. */
  (void)cubridge_shutdown();
}

static PyModuleDef_Slot cb_slots[] = {{Py_mod_exec, cb_exec}, {0, NULL}};

static struct PyModuleDef cb_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cubridge._native",
    .m_doc = "cubridge's kernels as a CPython extension (limited API).",
    .m_size = sizeof(cb_module),
    .m_slots = cb_slots,
    .m_traverse = cb_traverse,
    .m_clear = cb_clear,
    .m_free = cb_free,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&cb_module_def); }
