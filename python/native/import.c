/* Which protocol reads an argument, in the order that keeps device memory on
 * the device: cubridge.Array, the known types' readers (NumPy, torch, CuPy),
 * __cuda_array_interface__, the buffer protocol (host memory only),
 * __dlpack__. Readers only fill the argument: its checks, the CPU backend's
 * refusal of CUDA memory and its ordering are the runtime's, once for all. */
#include "import.h"

#include "array.h"
#include "backend.h"
#include "buffer_import.h"
#include "cai_import.h"
#include "cupy_import.h"
#include "dlpack.h"
#include "dlpack_import.h"
#include "errors.h"
#include "known_types.h"
#include "module.h"
#include "torch_import.h"

static void cb_from_array(PyObject* obj, cb_arg* a) {
  const cb_array* x = (const cb_array*)obj;
  cubridge_view* v = &a->v;
  a->keep = Py_NewRef(obj);
  a->array = obj;
  v->array = x->rt;
  v->data = x->ptr;
  v->dtype = x->dtype;
  v->ndim = x->ndim;
  for (int i = 0; i < x->ndim; i++) a->shape[i] = (int64_t)x->shape[i];
  v->memory = x->kind;
  v->device = x->device;
}

/* obj.__cuda_array_interface__, or NULL (no exception) when it has none: a
 * failing property (torch's CPU tensors, our own Arrays on the CPU backend)
 * counts as none. Types without it are not asked (an AttributeError each). */
static PyObject* cb_get_cai(const cb_module* m, PyObject* obj, int where) {
  if (where == CB_CAI_NONE) return NULL;
  if (where == CB_CAI_DICT) {
    PyObject* dict = PyObject_GenericGetDict(obj, NULL);
    PyObject* cai = dict ? PyDict_GetItemWithError(dict, m->names.cai) : NULL; /* borrowed */
    Py_XINCREF(cai);
    Py_XDECREF(dict);
    PyErr_Clear();
    return cai;
  }
  PyObject* cai = PyObject_GetAttr(obj, m->names.cai);
  if (cai == NULL) PyErr_Clear();
  return cai;
}

/* Through the generic protocols. */
static int cb_import_generic(cb_module* m, PyObject* obj, int cai_where, uintptr_t consumer,
                             cb_arg* a) {
  const char* name = a->v.name;
  int has_buffer = PyObject_CheckBuffer(obj);
  /* Device protocols first: CuPy, torch and JAX arrays also expose a buffer
   * protocol that fails for device memory. */
  PyObject* cai = cb_on_cuda(m) || !has_buffer ? cb_get_cai(m, obj, cai_where) : NULL;
  int32_t dev_type = kDLCPU, dev_id = 0;
  int queried = 0;
  if (cai != NULL) {
    int rc = cb_import_cai(m, obj, cai, a);
    Py_DECREF(cai);
    if (rc != CB_TRY_DLPACK) return rc;
    cb_arg_reset(a);
  } else if (has_buffer) {
    /* NumPy also has __dlpack_device__; a buffer of device memory (a producer
     * that says so) is read through DLPack. Errors count as "host". */
    if (cb_dlpack_query_device(m, obj, name, &dev_type, &dev_id) < 0) {
      PyErr_Clear();
      dev_type = kDLCPU;
    }
    if (dev_type == kDLCPU) return cb_import_buffer(m, obj, a);
    queried = 1;
  }
  if (!PyObject_HasAttr(obj, m->names.dlpack)) {
    /* Its class may have been given __cuda_array_interface__ since first seen. */
    if (cai_where != CB_CAI_TYPE && PyObject_HasAttr(obj, m->names.cai) &&
        cb_type_hint_renew(m, Py_TYPE(obj))->cai == CB_CAI_TYPE)
      return cb_import_generic(m, obj, CB_CAI_TYPE, consumer, a);
    cb_type_error(name,
                  "an array (buffer protocol, __dlpack__ or __cuda_array_interface__, e.g. a "
                  "NumPy array or cubridge.Array)",
                  obj);
    return -1;
  }
  if (!queried && cb_dlpack_query_device(m, obj, name, &dev_type, &dev_id) < 0) return -1;
  return cb_import_dlpack(m, obj, dev_type, consumer, a);
}

static int cb_import_any(cb_module* m, PyObject* obj, uintptr_t consumer, cb_arg* a) {
  if (cb_array_is(m, obj)) {
    cb_from_array(obj, a);
    return 0;
  }
  const cb_type_hint* hint = cb_type_hint_of(m, Py_TYPE(obj));
  const int cai_where = hint->cai;
  int rc = 0; /* a known type's reader: 0, -1, or CB_*_GENERIC for the generic path */
  switch (hint->known) {
    case CB_KNOWN_NUMPY: /* host memory, always */
      return cb_import_buffer(m, obj, a);
    case CB_KNOWN_MASKED: /* its buffer is the data without the mask */
      PyErr_Format(PyExc_TypeError,
                   "%s is a numpy.ma.MaskedArray, whose mask cubridge would ignore: pass "
                   "%s.filled(value) or %s.data",
                   a->v.name, a->v.name, a->v.name);
      return -1;
    case CB_KNOWN_TORCH:
      rc = cb_import_torch(m, obj, consumer, a);
      if (rc != CB_TORCH_GENERIC) return rc;
      break;
    case CB_KNOWN_CUPY:
      rc = cb_import_cupy(m, obj, consumer, a);
      if (rc != CB_CUPY_GENERIC) return rc;
      break;
    default:
      break;
  }
  if (rc != 0) cb_arg_reset(a); /* what the reader filled in is dropped */
  return cb_import_generic(m, obj, cai_where, consumer, a);
}

int cb_import(cb_module* m, PyObject* obj, const char* name, uintptr_t consumer, cb_arg* a) {
  cb_arg_init(a, name);
  if (cb_import_any(m, obj, consumer, a) < 0) {
    cb_arg_release(a);
    return -1;
  }
  return 0;
}
