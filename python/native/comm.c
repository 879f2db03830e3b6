/* The communicator functions of cubridge/comm.h for cubridge/_comm.py, which
 * gives them their Python shape (cubridge.Comm). A communicator is a capsule
 * (handle_box.h): _comm_destroy destroys it at once, collection otherwise. */
#include "comm.h"

#include <string.h>

#include "backend.h"
#include "call.h"
#include "checks.h"
#include "cubridge/comm.h"
#include "errors.h"
#include "handle_box.h"
#include "module.h"

/* Without the GIL: NCCL's destroy waits for the comm's collectives, whose
 * peers may be other Python threads. */
static cubridge_status cb_destroy_comm(void* comm) {
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_destroy((cubridge_comm)comm);
  Py_END_ALLOW_THREADS;
  return status;
}

static const cb_box_kind cb_comm_kind = {"cubridge.comm", "comm", "communicator", cb_destroy_comm};

static cubridge_comm cb_comm_of(PyObject* obj) {
  return (cubridge_comm)cb_box_live(obj, &cb_comm_kind);
}

static PyObject* cb_comm_wrap(cubridge_comm comm) { return cb_box_wrap(&cb_comm_kind, comm); }

static PyObject* cb_nccl_set_library_path(PyObject* m, PyObject* args) {
  const char* path;
  if (!PyArg_ParseTuple(args, "s:_nccl_set_library_path", &path)) return NULL;
  cubridge_status status = cubridge_nccl_set_library_path(path);
  return cb_none_or_raise(cb_module_of(m), status);
}

static PyObject* cb_nccl_version(PyObject* m, PyObject* unused) {
  int version = 0;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_nccl_version(&version);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return PyLong_FromLong(version);
}

static PyObject* cb_comm_unique_id(PyObject* m, PyObject* unused) {
  cubridge_comm_unique_id id;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_unique_id_create(&id);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return PyBytes_FromStringAndSize((const char*)id.bytes, sizeof id.bytes);
}

#define CB_MAX_LOCAL_COMMS 64

static PyObject* cb_comm_init_all(PyObject* m, PyObject* args) {
  PyObject* devices_obj;
  if (!PyArg_ParseTuple(args, "O:_comm_init_all", &devices_obj)) return NULL;
  PyObject* seq = PySequence_Fast(devices_obj, "devices must be a sequence of device indexes");
  if (seq == NULL) return NULL;
  Py_ssize_t ndev = PySequence_Size(seq);
  int devices[CB_MAX_LOCAL_COMMS];
  if (ndev < 1 || ndev > CB_MAX_LOCAL_COMMS) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "devices must list 1 to %d devices, got %zd",
                        CB_MAX_LOCAL_COMMS, ndev);
  }
  for (Py_ssize_t i = 0; i < ndev; i++) {
    PyObject* item = PySequence_GetItem(seq, i);
    long d = item ? PyLong_AsLong(item) : -1;
    Py_XDECREF(item);
    if (d == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return NULL;
    }
    if (d < 0 || d > INT32_MAX) {
      Py_DECREF(seq);
      return PyErr_Format(PyExc_ValueError, "devices[%zd] = %ld is not a device index", i, d);
    }
    devices[i] = (int)d;
  }
  Py_DECREF(seq);
  cubridge_comm comms[CB_MAX_LOCAL_COMMS];
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_init_all((int)ndev, devices, comms);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  PyObject* list = PyList_New(ndev);
  for (Py_ssize_t i = 0; i < ndev; i++) {
    PyObject* capsule = list ? cb_comm_wrap(comms[i]) : NULL;
    if (capsule == NULL) {
      for (Py_ssize_t j = i + (list == NULL ? 0 : 1); j < ndev; j++)
        cubridge_comm_destroy(comms[j]);
      Py_XDECREF(list);
      return NULL;
    }
    PyList_SetItem(list, i, capsule);
  }
  return list;
}

static PyObject* cb_comm_init_rank(PyObject* m, PyObject* args) {
  PyObject* id_obj;
  char* id_bytes;
  Py_ssize_t id_len;
  int nranks, rank, device;
  /* "S", not "y#": under the limited API of 3.11 the '#' formats need
   * PY_SSIZE_T_CLEAN, which 3.13+ headers no longer honour, and CPython
   * 3.11/3.12 raise SystemError for them at run time. */
  if (!PyArg_ParseTuple(args, "Siii:_comm_init_rank", &id_obj, &nranks, &rank, &device))
    return NULL;
  if (PyBytes_AsStringAndSize(id_obj, &id_bytes, &id_len) < 0) return NULL;
  if (id_len != CUBRIDGE_COMM_UNIQUE_ID_BYTES) {
    return PyErr_Format(PyExc_ValueError,
                        "unique_id must be %d bytes (from Comm.unique_id()), got %zd",
                        CUBRIDGE_COMM_UNIQUE_ID_BYTES, id_len);
  }
  cubridge_comm_unique_id id;
  memcpy(id.bytes, id_bytes, sizeof id.bytes);
  cubridge_comm comm = NULL;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_init_rank(&id, nranks, rank, device, &comm);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return cb_comm_wrap(comm);
}

/* Takes the comm out of its capsule and ends it with `end` (destroy or
 * abort), without the GIL: either may wait for the GPU. */
static PyObject* cb_comm_end(PyObject* m, PyObject* capsule,
                             cubridge_status (*end)(cubridge_comm)) {
  cubridge_comm comm = (cubridge_comm)cb_box_take(capsule, &cb_comm_kind);
  if (comm == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None); /* closed before */
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = end(comm);
  Py_END_ALLOW_THREADS;
  return cb_none_or_raise(cb_module_of(m), status);
}

static PyObject* cb_comm_destroy(PyObject* m, PyObject* capsule) {
  return cb_comm_end(m, capsule, cubridge_comm_destroy);
}

/* Aborts the comm: its queued collectives end early (cubridge_comm_abort). A
 * call in progress on it (a launch, which returns once queued) finishes
 * first; the GIL is then held from that call's end to the take, so no other
 * call starts in between. Closed before: nothing to do. */
static PyObject* cb_comm_abort(PyObject* m, PyObject* capsule) {
  if (cb_box_use(capsule, &cb_comm_kind) == NULL) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  cb_box_done(capsule);
  return cb_comm_end(m, capsule, cubridge_comm_abort);
}

/* Raises NCCL's asynchronous error on the comm, if any (cubridge_comm_async_error). */
static PyObject* cb_comm_async_error(PyObject* m, PyObject* capsule) {
  cubridge_comm comm = cb_comm_of(capsule);
  if (comm == NULL) return NULL;
  return cb_none_or_raise(cb_module_of(m), cubridge_comm_async_error(comm));
}

static PyObject* cb_comm_info(PyObject* m, PyObject* capsule) {
  cubridge_comm comm = cb_comm_of(capsule);
  if (comm == NULL) return NULL;
  int rank, nranks, device;
  cubridge_status status = cubridge_comm_info(comm, &rank, &nranks, &device);
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return Py_BuildValue("(iii)", rank, nranks, device);
}

/* What _comm_collective does with one rank's part of a collective. */
enum {
  CB_COMM_RUN = 0,   /* launch it, then record the arrays' uses */
  CB_COMM_CHECK = 1, /* check the arguments, launch nothing */
  CB_COMM_QUEUE = 2, /* launch it inside a group: NCCL queues the kernel at the group's end */
  CB_COMM_MARK = 3   /* after that end: record the arrays' uses, now that the kernel is queued */
};

/* Runs one collective (GIL released by the caller). */
static cubridge_status cb_comm_launch(int kind, cubridge_comm comm, int dtype, const void* ps,
                                      void* pr, size_t count, int extra, cubridge_stream stream) {
  switch (kind) {
    case CUBRIDGE_ALL_REDUCE:
      return cubridge_comm_all_reduce(comm, dtype, ps, pr, count, extra, stream);
    case CUBRIDGE_BROADCAST:
      return cubridge_comm_broadcast(comm, dtype, ps, pr, count, extra, stream);
    case CUBRIDGE_REDUCE_SCATTER:
      return cubridge_comm_reduce_scatter(comm, dtype, ps, pr, count, extra, stream);
    default:
      return cubridge_comm_all_gather(comm, dtype, ps, pr, count, stream);
  }
}

/* One rank's part of a collective on `comm`, used by this call alone. */
static PyObject* cb_comm_collective_on(cb_module* st, cubridge_comm comm, int kind,
                                       PyObject* send_obj, PyObject* recv_obj, int extra,
                                       PyObject* stream_obj, int mode) {
  int rank, nranks, device;
  cubridge_status status = cubridge_comm_info(comm, &rank, &nranks, &device);
  if (status != CUBRIDGE_OK) return cb_raise_status(st, status);
  cb_call c;
  /* stream=None: the device's default stream, whoever wrote the arrays. */
  if (cb_call_begin(&c, st, stream_obj, 0) < 0) return cb_call_fail(&c);
  cb_arg *send = NULL, *recv;
  if ((recv = cb_call_arg(&c, recv_obj, "recv", CUBRIDGE_ACCESS_WRITE)) == NULL)
    return cb_call_fail(&c);
  if (send_obj != Py_None || kind != CUBRIDGE_BROADCAST) {
    if (send_obj == recv_obj) {
      send = recv; /* in place: imported once */
    } else if ((send = cb_call_arg(&c, send_obj, "send", CUBRIDGE_ACCESS_READ)) == NULL ||
               cb_same_dtype(st, send, recv) < 0) {
      return cb_call_fail(&c);
    }
  }
  size_t send_n = send ? send->v.n : 0, recv_n = recv->v.n, count = recv_n;
  const char* want = NULL;
  switch (kind) {
    case CUBRIDGE_ALL_REDUCE:
    case CUBRIDGE_BROADCAST:
      if (send && send_n != recv_n) want = "send and recv must have the same size";
      break;
    case CUBRIDGE_REDUCE_SCATTER:
      if (send_n != recv_n * (size_t)nranks) want = "send must have nranks * recv.size elements";
      break;
    default:
      count = send_n;
      if (recv_n != send_n * (size_t)nranks) want = "recv must have nranks * send.size elements";
      break;
  }
  if (want != NULL) {
    PyErr_Format(PyExc_ValueError, "%s (send %zu, recv %zu, nranks %d)", want, send_n, recv_n,
                 nranks);
    return cb_call_fail(&c);
  }
  int dtype = recv->v.dtype;
  const void* ps = send ? send->v.data : NULL;
  void* pr = recv->v.data;
  cubridge_stream stream = c.rt.stream;
  if (mode == CB_COMM_MARK) return cb_call_end(&c, CUBRIDGE_OK, Py_NewRef(Py_None));
  if (mode == CB_COMM_CHECK) {
    status = cubridge_comm_check(kind, comm, dtype, ps, pr, count, extra, stream);
  } else {
    Py_BEGIN_ALLOW_THREADS;
    status = cb_comm_launch(kind, comm, dtype, ps, pr, count, extra, stream);
    Py_END_ALLOW_THREADS;
  }
  if (mode == CB_COMM_RUN) return cb_call_end(&c, status, Py_NewRef(Py_None));
  /* CHECK ran nothing; QUEUE's uses are recorded by CB_COMM_MARK. The message
   * is read before the release, a cubridge call that clears it. */
  PyObject* r = status == CUBRIDGE_OK ? Py_NewRef(Py_None) : cb_raise_status(st, status);
  cb_call_fail(&c);
  return r;
}

/* _comm_collective(kind, comm, send, recv, op_or_root, stream, mode): one
 * rank's part of a collective (kind: cubridge_collective). send may be None
 * for a broadcast's non-root ranks. mode: see CB_COMM_RUN and the rest
 * (cubridge.Comm checks every rank of a group before it launches any: a rank
 * refused after the others were queued would leave them waiting for it). */
static PyObject* cb_comm_collective(PyObject* m, PyObject* args) {
  int kind, extra, mode;
  PyObject *comm_obj, *send_obj, *recv_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "iOOOiOi:_comm_collective", &kind, &comm_obj, &send_obj, &recv_obj,
                        &extra, &stream_obj, &mode))
    return NULL;
  if (kind < CUBRIDGE_ALL_REDUCE || kind > CUBRIDGE_ALL_GATHER) {
    return PyErr_Format(PyExc_ValueError, "unknown collective %d", kind);
  }
  if (mode < CB_COMM_RUN || mode > CB_COMM_MARK) {
    return PyErr_Format(PyExc_ValueError, "unknown mode %d", mode);
  }
  cubridge_comm comm = (cubridge_comm)cb_box_use(comm_obj, &cb_comm_kind);
  if (comm == NULL) return NULL;
  PyObject* r = cb_comm_collective_on(cb_module_of(m), comm, kind, send_obj, recv_obj, extra,
                                      stream_obj, mode);
  cb_box_done(comm_obj);
  return r;
}

static PyObject* cb_comm_group(PyObject* m, PyObject* start) {
  int begin = PyObject_IsTrue(start);
  if (begin < 0) return NULL;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS; /* the end launches the group's kernels */
  status = begin ? cubridge_comm_group_start() : cubridge_comm_group_end();
  Py_END_ALLOW_THREADS;
  return cb_none_or_raise(cb_module_of(m), status);
}

static PyMethodDef cb_comm_methods[] = {
    {"_nccl_set_library_path", cb_nccl_set_library_path, METH_VARARGS,
     "_nccl_set_library_path($module, path, /)\n--\n\nThe libnccl.so.2 to try first."},
    {"_nccl_version", cb_nccl_version, METH_NOARGS,
     "_nccl_version($module, /)\n--\n\nReturns int (loads NCCL)."},
    {"_comm_unique_id", cb_comm_unique_id, METH_NOARGS,
     "_comm_unique_id($module, /)\n--\n\nReturns bytes."},
    {"_comm_init_all", cb_comm_init_all, METH_VARARGS,
     "_comm_init_all($module, devices, /)\n--\n\nReturns [comm]."},
    {"_comm_init_rank", cb_comm_init_rank, METH_VARARGS,
     "_comm_init_rank($module, unique_id, nranks, rank, device, /)\n--\n\nReturns comm."},
    {"_comm_destroy", cb_comm_destroy, METH_O, "_comm_destroy($module, comm, /)\n--\n\n"},
    {"_comm_abort", cb_comm_abort, METH_O, "_comm_abort($module, comm, /)\n--\n\n"},
    {"_comm_async_error", cb_comm_async_error, METH_O,
     "_comm_async_error($module, comm, /)\n--\n\nRaises it."},
    {"_comm_info", cb_comm_info, METH_O,
     "_comm_info($module, comm, /)\n--\n\nReturns (rank, nranks, device)."},
    {"_comm_collective", cb_comm_collective, METH_VARARGS,
     "_comm_collective($module, kind, comm, send, recv, op_or_root, stream, mode, /)\n--\n\n"},
    {"_comm_group", cb_comm_group, METH_O, "_comm_group($module, start, /)\n--\n\n"},
    {NULL, NULL, 0, NULL}};

int cb_comm_init(PyObject* module, cb_module* m) {
  (void)m;
  return PyModule_AddFunctions(module, cb_comm_methods);
}
