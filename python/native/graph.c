/* Streams of cubridge's own and the CUDA graphs they record (graph.h). Streams
 * and graphs are capsules (handle_box.h). While a stream records, every object
 * an op on it uses is appended to st->recording (call.c); the list goes to the
 * Graph, which keeps those objects alive and, at each launch, orders the
 * cubridge.Arrays among them like an op does. */
#include "graph.h"

#include "array.h"
#include "backend.h"
#include "errors.h"
#include "handle_box.h"
#include "module.h"
#include "stream.h"

/* A collected Stream is destroyed as close() does it, after its work (the
 * runtime's arrays last used there count on a stream that is gone being
 * done): the wait is the destroy's, without the GIL. */
static cubridge_status cb_destroy_stream(void* s) {
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_stream_destroy((cubridge_stream)s);
  Py_END_ALLOW_THREADS;
  return status;
}
static cubridge_status cb_destroy_graph(void* g) {
  return cubridge_graph_destroy((cubridge_graph)g);
}

static const cb_box_kind cb_stream_kind = {"cubridge.stream", "stream", "cubridge stream",
                                           cb_destroy_stream};
static const cb_box_kind cb_graph_kind = {"cubridge.graph", "graph", "graph", cb_destroy_graph};

static PyObject* cb_fail(PyObject* m, cubridge_status status) {
  return cb_raise_status(cb_module_of(m), status);
}

/* True when the stream `handle` is the one whose recording st->recording holds. */
static int cb_records(const cb_graph* st, uintptr_t handle) {
  return st->recording != NULL && handle == st->recording_stream;
}

PyObject* cb_graph_recording(cb_module* m, uintptr_t handle) {
  return cb_records(&m->graph, handle) ? Py_NewRef(m->graph.recording) : NULL;
}

/* True when `s` is the stream whose recording st->recording holds. */
static int cb_is_recording(const cb_graph* st, cubridge_stream s) {
  uintptr_t handle = 0;
  return cubridge_stream_handle(s, &handle) == CUBRIDGE_OK && cb_records(st, handle);
}

static PyObject* cb_stream_create(PyObject* m, PyObject* args) {
  int device;
  if (!PyArg_ParseTuple(args, "i:_stream_create", &device)) return NULL;
  cubridge_stream s = NULL;
  cubridge_status status =
      device < 0 ? cubridge_stream_create(&s) : cubridge_stream_create_on(device, &s);
  if (status != CUBRIDGE_OK) return cb_fail(m, status);
  return cb_box_wrap(&cb_stream_kind, s);
}

static PyObject* cb_stream_info(PyObject* m, PyObject* capsule) {
  cubridge_stream s = (cubridge_stream)cb_box_live(capsule, &cb_stream_kind);
  if (s == NULL) return NULL;
  uintptr_t handle = 0;
  int device = 0;
  cubridge_status status = cubridge_stream_handle(s, &handle);
  if (status == CUBRIDGE_OK) status = cubridge_stream_device(s, &device);
  if (status != CUBRIDGE_OK) return cb_fail(m, status);
  return Py_BuildValue("(Ki)", (unsigned long long)handle, device);
}

static PyObject* cb_stream_synchronize(PyObject* m, PyObject* capsule) {
  cubridge_stream s =
      (cubridge_stream)cb_box_use(capsule, &cb_stream_kind); /* not closed meanwhile */
  if (s == NULL) return NULL;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_stream_synchronize(s);
  Py_END_ALLOW_THREADS;
  /* Raised before the done, which may destroy a stream closed meanwhile. */
  PyObject* r = cb_none_or_raise(cb_module_of(m), status);
  cb_box_done(capsule);
  return r;
}

static PyObject* cb_stream_query(PyObject* m, PyObject* capsule) {
  cubridge_stream s = (cubridge_stream)cb_box_use(capsule, &cb_stream_kind);
  if (s == NULL) return NULL;
  int done = 0;
  cubridge_status status = cubridge_stream_query(s, &done);
  /* Raised before the done, which may destroy a stream closed meanwhile (a
   * library call, which clears the message). */
  PyObject* r = status == CUBRIDGE_OK ? PyBool_FromLong(done) : cb_fail(m, status);
  cb_box_done(capsule);
  return r;
}

static PyObject* cb_stream_close(PyObject* m, PyObject* capsule) {
  cb_module* mod = cb_module_of(m);
  cb_graph* st = &mod->graph;
  /* In use until destroyed: a second close waits, then finds it closed. */
  cubridge_stream live = (cubridge_stream)cb_box_use(capsule, &cb_stream_kind);
  if (live == NULL) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
    PyErr_Clear(); /* closed before: nothing to do */
    Py_RETURN_NONE;
  }
  uintptr_t handle = 0;
  cubridge_status status = cubridge_stream_handle(live, &handle);
  /* Its work finishes first, without the GIL (the destroy waits too, with
   * it): the runtime's arrays last used there have no event for it, and count
   * on a closed stream being done. A capture could begin during the wait. */
  int recording = status == CUBRIDGE_OK && cb_records(st, handle);
  if (status == CUBRIDGE_OK && !recording) {
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_stream_synchronize(live);
    Py_END_ALLOW_THREADS;
    recording = status == CUBRIDGE_OK && cb_records(st, handle);
  }
  cb_box_done(capsule);
  if (status != CUBRIDGE_OK) return cb_fail(m, status);
  if (recording)
    return cb_invalid(mod, "the stream is recording a graph: end the capture before closing it");
  cubridge_stream s = (cubridge_stream)cb_box_take(capsule, &cb_stream_kind);
  if (s == NULL) Py_RETURN_NONE; /* closed by another thread meanwhile */
  status = cubridge_stream_destroy(s);
  return cb_none_or_raise(mod, status);
}

static PyObject* cb_stream_begin_capture_on(PyObject* m, cb_graph* st, cubridge_stream s) {
  if (st->recording != NULL)
    return cb_invalid(cb_module_of(m),
                      "another cubridge.Stream is recording a graph (one recording at a time)");
  uintptr_t handle = 0;
  cubridge_status status = cubridge_stream_handle(s, &handle);
  if (status == CUBRIDGE_OK) status = cubridge_stream_begin_capture(s);
  if (status != CUBRIDGE_OK) return cb_fail(m, status);
  st->recording = PyList_New(0);
  if (st->recording == NULL) {
    cubridge_graph g = NULL;
    (void)cubridge_stream_end_capture(s, &g);
    (void)cubridge_graph_destroy(g);
    return NULL;
  }
  st->recording_stream = handle;
  Py_RETURN_NONE;
}

static PyObject* cb_stream_begin_capture(PyObject* m, PyObject* capsule) {
  cb_graph* st = &cb_module_of(m)->graph;
  /* Not while a close() waits for the stream's work (it would end the capture). */
  cubridge_stream s = (cubridge_stream)cb_box_use(capsule, &cb_stream_kind);
  if (s == NULL) return NULL;
  PyObject* r = cb_stream_begin_capture_on(m, st, s);
  cb_box_done(capsule);
  return r;
}

/* The objects of `list` once each, in order (a recording uses an array once
 * per op); NULL with an error. */
static PyObject* cb_unique(PyObject* list) {
  PyObject* seen = PySet_New(NULL);
  PyObject* out = PyList_New(0);
  Py_ssize_t n = PyList_Size(list);
  for (Py_ssize_t i = 0; seen != NULL && out != NULL && i < n; i++) {
    PyObject* obj = PyList_GetItem(list, i);
    PyObject* id = PyLong_FromVoidPtr(obj);
    int found = id == NULL ? -1 : PySet_Contains(seen, id);
    if (found == 0 && (PySet_Add(seen, id) < 0 || PyList_Append(out, obj) < 0)) found = -1;
    Py_XDECREF(id);
    if (found < 0) Py_CLEAR(out);
  }
  Py_XDECREF(seen);
  if (seen == NULL) Py_CLEAR(out);
  return out;
}

/* Ends the recording: (graph, the objects its ops used). The stream runs
 * normally again whatever happens. */
static PyObject* cb_stream_end_capture(PyObject* m, PyObject* capsule) {
  cb_graph* st = &cb_module_of(m)->graph;
  cubridge_stream s = (cubridge_stream)cb_box_live(capsule, &cb_stream_kind);
  if (s == NULL) return NULL;
  if (!cb_is_recording(st, s))
    return cb_invalid(cb_module_of(m), "the stream is not recording a graph");
  PyObject* used = st->recording; /* the reference moves here */
  st->recording = NULL;
  st->recording_stream = 0;
  cubridge_graph g = NULL;
  /* The runtime frees the Arrays dropped during the recording as it ends. The
   * message first: the frees that follow (of those only the recording held)
   * are cubridge calls, and the library's message lasts only until the next. */
  cubridge_status status = cubridge_stream_end_capture(s, &g);
  if (status != CUBRIDGE_OK) {
    cb_fail(m, status);
    Py_DECREF(used);
    return NULL;
  }
  PyObject* unique = cb_unique(used);
  Py_DECREF(used);
  if (unique == NULL) {
    (void)cubridge_graph_destroy(g);
    return NULL;
  }
  PyObject* graph = cb_box_wrap(&cb_graph_kind, g);
  if (graph == NULL) {
    Py_DECREF(unique);
    return NULL;
  }
  return Py_BuildValue("(NN)", graph, unique);
}

/* Launches a graph on `stream` (None: the default stream). The cubridge.Arrays
 * its recording used are ordered like an op's written arguments: their pending
 * writes and other streams' uses before the launch, the launch before their
 * next use and their free. */
static PyObject* cb_graph_launch(PyObject* m, PyObject* args) {
  cb_module* st = cb_module_of(m);
  PyObject *capsule, *used, *stream_obj;
  if (!PyArg_ParseTuple(args, "OO!O:_graph_launch", &capsule, &PyList_Type, &used, &stream_obj))
    return NULL;
  uintptr_t handle = 0;
  cubridge_stream s = NULL;
  if (cb_stream_handle(st, stream_obj, &handle) < 0 || cb_stream_wrap(st, handle, -1, &s) < 0)
    return NULL;
  Py_ssize_t n = PyList_Size(used);
  cubridge_status status = CUBRIDGE_OK;
  for (Py_ssize_t i = 0; i < n && status == CUBRIDGE_OK; i++) {
    PyObject* obj = PyList_GetItem(used, i);
    /* A launch may write every Array it keeps: after their earlier uses too. */
    if (cb_array_is(st, obj))
      status = cubridge_array_acquire(((cb_array*)obj)->rt, s, CUBRIDGE_ACCESS_WRITE);
  }
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    cb_stream_release(s);
    return NULL;
  }
  /* One launch of a graph at a time (CUDA graphs take no concurrent calls). */
  cubridge_graph g = (cubridge_graph)cb_box_use(capsule, &cb_graph_kind);
  if (g == NULL) {
    cb_stream_release(s);
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_graph_launch(g, s);
  Py_END_ALLOW_THREADS;
  /* The message first: a close() during the launch leaves the graph to
   * cb_box_done to destroy, a cubridge call that clears it. */
  if (status != CUBRIDGE_OK) cb_raise_status(st, status);
  cb_box_done(capsule);
  for (Py_ssize_t i = 0; i < n && status == CUBRIDGE_OK; i++) {
    PyObject* obj = PyList_GetItem(used, i);
    if (cb_array_is(st, obj))
      (void)cubridge_array_release(((cb_array*)obj)->rt, s, CUBRIDGE_ACCESS_WRITE);
  }
  cb_stream_release(s);
  if (status != CUBRIDGE_OK) return NULL;
  Py_RETURN_NONE;
}

static PyObject* cb_graph_close(PyObject* m, PyObject* capsule) {
  cubridge_graph g = (cubridge_graph)cb_box_take(capsule, &cb_graph_kind);
  if (g == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None); /* closed before */
  cubridge_status status = cubridge_graph_destroy(g);
  return cb_none_or_raise(cb_module_of(m), status);
}

/* cubridge.Stream registers its class once (before any instance exists), so
 * that ops read a Stream's handle from its slot (known_types.c). */
static PyObject* cb_stream_type(PyObject* m, PyObject* type) {
  if (!PyType_Check(type)) return cb_type_error("type", "a class", type);
  cb_types* st = &cb_module_of(m)->types;
  PyObject* old = (PyObject*)st->stream_type;
  st->stream_type = (PyTypeObject*)Py_NewRef(type);
  Py_XDECREF(old);
  Py_RETURN_NONE;
}

static PyMethodDef cb_graph_methods[] = {
    {"_stream_type", cb_stream_type, METH_O, "_stream_type($module, cls, /)\n--\n\n"},
    {"_stream_create", cb_stream_create, METH_VARARGS,
     "_stream_create($module, device, /)\n--\n\nReturns stream."},
    {"_stream_info", cb_stream_info, METH_O,
     "_stream_info($module, stream, /)\n--\n\nReturns (handle, device)."},
    {"_stream_synchronize", cb_stream_synchronize, METH_O,
     "_stream_synchronize($module, stream, /)\n--\n\n"},
    {"_stream_query", cb_stream_query, METH_O,
     "_stream_query($module, stream, /)\n--\n\nReturns bool (all done)."},
    {"_stream_close", cb_stream_close, METH_O, "_stream_close($module, stream, /)\n--\n\n"},
    {"_stream_begin_capture", cb_stream_begin_capture, METH_O,
     "_stream_begin_capture($module, stream, /)\n--\n\n"},
    {"_stream_end_capture", cb_stream_end_capture, METH_O,
     "_stream_end_capture($module, stream, /)\n--\n\nReturns (graph, [objects used])."},
    {"_graph_launch", cb_graph_launch, METH_VARARGS,
     "_graph_launch($module, graph, used, stream, /)\n--\n\n"},
    {"_graph_close", cb_graph_close, METH_O, "_graph_close($module, graph, /)\n--\n\n"},
    {NULL, NULL, 0, NULL}};

int cb_graph_init(PyObject* module, cb_module* m) {
  (void)m;
  return PyModule_AddFunctions(module, cb_graph_methods);
}

int cb_graph_traverse(cb_module* m, visitproc visit, void* arg) {
  Py_VISIT(m->graph.recording);
  return 0;
}

void cb_graph_clear(cb_module* m) {
  Py_CLEAR(m->graph.recording);
  m->graph.recording_stream = 0; /* its list is gone: nothing records now */
}
