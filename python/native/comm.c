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

static cubridge_status cb_destroy_comm(void* comm) {
  return cubridge_comm_destroy((cubridge_comm)comm);
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
  return cb_none_or_raise(cb_state_of_module(m), status);
}

static PyObject* cb_nccl_version(PyObject* m, PyObject* unused) {
  int version = 0;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_nccl_version(&version);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_state_of_module(m), status);
  return PyLong_FromLong(version);
}

static PyObject* cb_comm_unique_id(PyObject* m, PyObject* unused) {
  cubridge_comm_unique_id id;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_unique_id_create(&id);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_state_of_module(m), status);
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
    devices[i] = (int)d;
  }
  Py_DECREF(seq);
  cubridge_comm comms[CB_MAX_LOCAL_COMMS];
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_init_all((int)ndev, devices, comms);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_state_of_module(m), status);
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
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_state_of_module(m), status);
  return cb_comm_wrap(comm);
}

static PyObject* cb_comm_destroy(PyObject* m, PyObject* capsule) {
  cubridge_comm comm = (cubridge_comm)cb_box_take(capsule, &cb_comm_kind);
  if (comm == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None); /* closed before */
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_comm_destroy(comm);
  Py_END_ALLOW_THREADS;
  return cb_none_or_raise(cb_state_of_module(m), status);
}

static PyObject* cb_comm_info(PyObject* m, PyObject* capsule) {
  cubridge_comm comm = cb_comm_of(capsule);
  if (comm == NULL) return NULL;
  int rank, nranks, device;
  cubridge_status status = cubridge_comm_info(comm, &rank, &nranks, &device);
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_state_of_module(m), status);
  return Py_BuildValue("(iii)", rank, nranks, device);
}

enum { CB_ALL_REDUCE = 0, CB_BROADCAST = 1, CB_REDUCE_SCATTER = 2, CB_ALL_GATHER = 3 };

/* cubridge.InvalidArgumentError (a ValueError) unless `v` (when given) is
 * memory NCCL can use on `device`, as far as its producer says: device memory
 * of that device, managed or pinned; the C library says the same in the same
 * words when it checks. */
static int cb_comm_check_home(cb_state* st, const cb_view* v, int device) {
  PyObject* exc = st->errors[CUBRIDGE_ERR_INVALID_ARGUMENT];
  if (v == NULL) return 0;
  if (v->memory == CUBRIDGE_MEMORY_HOST) {
    PyErr_Format(exc,
                 "argument '%s' is pageable host memory; NCCL needs memory of the "
                 "communicator's device %d (device, managed or pinned)",
                 v->name, device);
    return -1;
  }
  if (v->memory == CUBRIDGE_MEMORY_DEVICE && v->device != device) {
    PyErr_Format(exc, "argument '%s' is on device %d, the communicator is on device %d", v->name,
                 v->device, device);
    return -1;
  }
  return 0;
}

/* _comm_collective(kind, comm, send, recv, op_or_root, stream, check_only):
 * one rank's part of a collective. send may be None for a broadcast's
 * non-root ranks. check_only: import and check the arguments, launch nothing
 * (cubridge.Comm checks every rank before it launches a group: a rank refused
 * after the others were queued would leave them waiting for it). */
static PyObject* cb_comm_collective(PyObject* m, PyObject* args) {
  int kind, extra, check_only;
  PyObject *comm_obj, *send_obj, *recv_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "iOOOiOp:_comm_collective", &kind, &comm_obj, &send_obj, &recv_obj,
                        &extra, &stream_obj, &check_only))
    return NULL;
  if (kind < CB_ALL_REDUCE || kind > CB_ALL_GATHER) {
    return PyErr_Format(PyExc_ValueError, "unknown collective %d", kind);
  }
  cubridge_comm comm = cb_comm_of(comm_obj);
  if (comm == NULL) return NULL;
  int rank, nranks, device;
  if (cubridge_comm_info(comm, &rank, &nranks, &device) != CUBRIDGE_OK) {
    return cb_raise_status(cb_state_of_module(m), CUBRIDGE_ERR_INVALID_ARGUMENT);
  }
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  /* stream=None: the device's default stream, whoever wrote the arrays. */
  if (cb_call_begin(&c, st, stream_obj, 0) < 0) return cb_call_fail(&c);
  cb_view *send = NULL, *recv;
  if ((recv = cb_call_arg(&c, recv_obj, "recv", 1)) == NULL) return cb_call_fail(&c);
  if (send_obj != Py_None || kind != CB_BROADCAST) {
    if (send_obj == recv_obj) {
      send = recv; /* in place: imported once */
    } else if ((send = cb_call_arg(&c, send_obj, "send", 0)) == NULL ||
               cb_same_dtype(st, send, recv) < 0) {
      return cb_call_fail(&c);
    }
  }
  size_t send_n = send ? send->n : 0, recv_n = recv->n, count = recv_n;
  const char* want = NULL;
  switch (kind) {
    case CB_ALL_REDUCE:
    case CB_BROADCAST:
      if (send && send_n != recv_n) want = "send and recv must have the same size";
      break;
    case CB_REDUCE_SCATTER:
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
  if (check_only) {
    if (cb_on_cuda(st) &&
        (cb_comm_check_home(st, send, device) < 0 || cb_comm_check_home(st, recv, device) < 0))
      return cb_call_fail(&c);
    cb_call_fail(&c);
    Py_RETURN_NONE;
  }
  int dtype = recv->dtype;
  const void* ps = send ? send->data : NULL;
  void* pr = recv->data;
  cubridge_stream stream = c.stream;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  switch (kind) {
    case CB_ALL_REDUCE:
      status = cubridge_comm_all_reduce(comm, dtype, ps, pr, count, extra, stream);
      break;
    case CB_BROADCAST:
      status = cubridge_comm_broadcast(comm, dtype, ps, pr, count, extra, stream);
      break;
    case CB_REDUCE_SCATTER:
      status = cubridge_comm_reduce_scatter(comm, dtype, ps, pr, count, extra, stream);
      break;
    default:
      status = cubridge_comm_all_gather(comm, dtype, ps, pr, count, stream);
      break;
  }
  Py_END_ALLOW_THREADS;
  Py_INCREF(Py_None);
  return cb_call_end(&c, status, recv, Py_None);
}

static PyObject* cb_comm_group(PyObject* m, PyObject* start) {
  int begin = PyObject_IsTrue(start);
  if (begin < 0) return NULL;
  cubridge_status status = begin ? cubridge_comm_group_start() : cubridge_comm_group_end();
  return cb_none_or_raise(cb_state_of_module(m), status);
}

static PyMethodDef cb_comm_methods[] = {
    {"_nccl_set_library_path", cb_nccl_set_library_path, METH_VARARGS,
     "_nccl_set_library_path(path): the libnccl.so.2 to try first"},
    {"_nccl_version", cb_nccl_version, METH_NOARGS, "_nccl_version() -> int (loads NCCL)"},
    {"_comm_unique_id", cb_comm_unique_id, METH_NOARGS, "_comm_unique_id() -> bytes"},
    {"_comm_init_all", cb_comm_init_all, METH_VARARGS, "_comm_init_all(devices) -> [comm]"},
    {"_comm_init_rank", cb_comm_init_rank, METH_VARARGS,
     "_comm_init_rank(unique_id, nranks, rank, device) -> comm"},
    {"_comm_destroy", cb_comm_destroy, METH_O, "_comm_destroy(comm)"},
    {"_comm_info", cb_comm_info, METH_O, "_comm_info(comm) -> (rank, nranks, device)"},
    {"_comm_collective", cb_comm_collective, METH_VARARGS,
     "_comm_collective(kind, comm, send, recv, op_or_root, stream, check_only)"},
    {"_comm_group", cb_comm_group, METH_O, "_comm_group(start: bool)"},
    {NULL, NULL, 0, NULL}};

int cb_comm_init(PyObject* module, cb_state* st) {
  (void)st;
  return PyModule_AddFunctions(module, cb_comm_methods);
}
