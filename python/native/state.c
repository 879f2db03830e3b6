/* Module state: the C ABI's tables read at init, interned names, the backend. */
#include "state.h"

#include <string.h>

#include "array.h"
#include "dlpack.h"
#include "parked.h"

cb_state* cb_state_of_type(PyTypeObject* type) {
  PyObject* module = PyType_GetModule(type); /* borrowed */
  return module == NULL ? NULL : cb_state_of_module(module);
}

/* The protocol spellings of a dtype follow from its ABI name and size:
 * "float32" is DLPack kDLFloat 32 bits, typestr "<f4", buffer format "f". */
static void cb_derive_codes(cb_dtype_info* d) {
  static const struct {
    const char* prefix;
    uint8_t dl_code;
    char kind;              /* typestr kind, 0: none */
    const char* formats[9]; /* buffer format by size in bytes */
  } families[] = {
      {"bfloat", kDLBfloat, 0, {0}},
      {"float", kDLFloat, 'f', {[2] = "e", [4] = "f", [8] = "d"}},
      {"uint", kDLUInt, 'u', {[1] = "B", [2] = "H", [4] = "I", [8] = "Q"}},
      {"int", kDLInt, 'i', {[1] = "b", [2] = "h", [4] = "i", [8] = "q"}},
  };
  d->dl_code = CB_DL_NONE;
  d->typestr[0] = '\0';
  d->format[0] = '\0';
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
    size_t len = strlen(families[i].prefix);
    if (strncmp(d->name, families[i].prefix, len) != 0) continue;
    d->dl_code = families[i].dl_code;
    if (families[i].kind != 0) {
      PyOS_snprintf(d->typestr, sizeof d->typestr, "%c%c%zu", d->size == 1 ? '|' : '<',
                    families[i].kind, d->size);
    }
    if (d->size < 9 && families[i].formats[d->size] != NULL) {
      strcpy(d->format, families[i].formats[d->size]);
    }
    return;
  }
}

static int cb_read_dtypes(cb_state* st) {
  int count = cubridge_dtype_count();
  if (count < 0 || count > CB_MAX_DTYPES) {
    PyErr_Format(PyExc_ImportError, "cubridge: the library reports %d dtypes (at most %d fit)",
                 count, CB_MAX_DTYPES);
    return -1;
  }
  st->dtype_count = count;
  for (int i = 0; i < count; i++) {
    cb_dtype_info* d = &st->dtypes[i];
    d->name = cubridge_dtype_name(i);
    d->size = cubridge_dtype_size(i);
    if (d->name == NULL || d->size == 0) {
      PyErr_Format(PyExc_ImportError, "cubridge: the library has no name or size for dtype %d", i);
      return -1;
    }
    d->name_obj = PyUnicode_InternFromString(d->name);
    if (d->name_obj == NULL) return -1;
    cb_derive_codes(d);
  }
  return 0;
}

static int cb_read_memory_names(cb_state* st) {
  for (int k = 0; k < CB_NUM_MEMORY_KINDS; k++) {
    const char* name = cubridge_memory_name(k);
    if (name == NULL) {
      PyErr_Format(PyExc_ImportError, "cubridge: the library has no name for memory kind %d", k);
      return -1;
    }
    st->memory_names[k] = PyUnicode_InternFromString(name);
    if (st->memory_names[k] == NULL) return -1;
  }
  return 0;
}

int cb_state_init(cb_state* st) {
  st->backend = -1;
  st->status_count = cubridge_status_count();
  if (st->status_count < 1 || st->status_count > CB_MAX_STATUSES) {
    PyErr_Format(PyExc_ImportError, "cubridge: the library reports %d statuses (at most %d fit)",
                 st->status_count, CB_MAX_STATUSES);
    return -1;
  }
  if (cb_read_dtypes(st) < 0 || cb_read_memory_names(st) < 0) return -1;
#define CB_INTERN(field, text) \
  if ((st->field = PyUnicode_InternFromString(text)) == NULL) return -1
  CB_INTERN(s_dlpack, "__dlpack__");
  CB_INTERN(s_dlpack_device, "__dlpack_device__");
  CB_INTERN(s_cai, "__cuda_array_interface__");
  CB_INTERN(s_shape, "shape");
  CB_INTERN(s_typestr, "typestr");
  CB_INTERN(s_data, "data");
  CB_INTERN(s_strides, "strides");
  CB_INTERN(s_mask, "mask");
  CB_INTERN(s_stream, "stream");
  CB_INTERN(s_max_version, "max_version");
  CB_INTERN(s_handle, "_handle");
  CB_INTERN(s_cuda_stream_proto, "__cuda_stream__");
  CB_INTERN(s_ptr, "ptr");
  CB_INTERN(s_cuda_stream, "cuda_stream");
  CB_INTERN(s_device_id, "device_id");
  CB_INTERN(s_dtype, "dtype");
  CB_INTERN(s_str, "str");
#undef CB_INTERN
  for (int i = 0; i < CB_KW_COUNT; i++) {
    if ((st->keywords[i] = PyUnicode_InternFromString(cb_keyword_text(i))) == NULL) return -1;
  }
  st->max_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  return st->max_version == NULL ? -1 : 0;
}

/* Every reference the state holds, listed once for traverse and clear (so
 * that no field can be cleared but not visited). Returns how many. */
#define CB_NUM_FIELD_REFS 28
#define CB_MAX_REFS                                                                                \
  (CB_NUM_FIELD_REFS + CB_MAX_STATUSES + CB_TYPE_HINTS + 3 * CB_MAX_DTYPES + CB_NUM_MEMORY_KINDS + \
   CB_TORCH_NAMES + CB_KW_COUNT + CB_CUPY_DTYPES)
static int cb_state_refs(cb_state* st, PyObject** refs[CB_MAX_REFS]) {
  PyObject** fields[CB_NUM_FIELD_REFS] = {(PyObject**)&st->array_type,
                                          &st->error_base,
                                          &st->numpy_empty,
                                          (PyObject**)&st->numpy_ndarray,
                                          &st->s_dlpack,
                                          &st->s_dlpack_device,
                                          &st->s_cai,
                                          &st->s_shape,
                                          &st->s_typestr,
                                          &st->s_data,
                                          &st->s_strides,
                                          &st->s_mask,
                                          &st->s_stream,
                                          &st->s_max_version,
                                          &st->s_handle,
                                          &st->s_cuda_stream_proto,
                                          &st->s_ptr,
                                          &st->s_cuda_stream,
                                          &st->max_version,
                                          &st->recording,
                                          (PyObject**)&st->stream_type,
                                          &st->torch_strided,
                                          &st->torch_tensor,
                                          &st->torch_current_stream,
                                          &st->s_device_id,
                                          &st->s_dtype,
                                          &st->s_str,
                                          &st->cupy_current_stream};
  int n = 0;
  for (int i = 0; i < CB_NUM_FIELD_REFS; i++) refs[n++] = fields[i];
  for (int i = 0; i < CB_MAX_STATUSES; i++) refs[n++] = &st->errors[i];
  for (int i = 0; i < CB_TYPE_HINTS; i++) refs[n++] = (PyObject**)&st->hints[i].type;
  for (int i = 0; i < CB_MAX_DTYPES; i++) {
    refs[n++] = &st->dtypes[i].name_obj;
    refs[n++] = &st->torch_dtypes[i];
    refs[n++] = &st->numpy_dtypes[i];
  }
  for (int i = 0; i < CB_NUM_MEMORY_KINDS; i++) refs[n++] = &st->memory_names[i];
  for (int i = 0; i < CB_TORCH_NAMES; i++) refs[n++] = &st->torch_names[i];
  for (int i = 0; i < CB_KW_COUNT; i++) refs[n++] = &st->keywords[i];
  for (int i = 0; i < CB_CUPY_DTYPES; i++) refs[n++] = &st->cupy_dtype_seen[i];
  return n;
}

int cb_state_traverse(cb_state* st, visitproc visit, void* arg) {
  PyObject** refs[CB_MAX_REFS];
  int n = cb_state_refs(st, refs);
  for (int i = 0; i < n; i++) Py_VISIT(*refs[i]);
  return 0;
}

void cb_state_clear(cb_state* st) {
  PyObject** refs[CB_MAX_REFS];
  int n = cb_state_refs(st, refs);
  for (int i = 0; i < n; i++) Py_CLEAR(*refs[i]);
  st->torch_dl_fill = NULL;
  st->torch_work_stream = NULL;
  st->torch_ready = 0;
  st->cupy_ready = 0;
  st->numpy_new = 0;
  st->recording_stream = 0; /* its list is gone (above): nothing records now */
  cb_array_free_deferred(st);
  PyMem_Free(st->deferred);
  st->deferred = NULL;
  st->deferred_cap = 0;
  cb_park_release(st, -1);
  if (st->order_event != NULL) {
    (void)cubridge_event_destroy(st->order_event);
    st->order_event = NULL;
  }
}
