/* Importing a torch.Tensor: through torch's DLPack C exchange table when it
 * has one (one C call fills a DLTensor), else through the tensor's C
 * accessors (data_ptr(), dtype, shape, is_contiguous(), device), never through
 * __cuda_array_interface__, a property torch computes in Python on every
 * access (about 5 us). */
#ifndef CUBRIDGE_CEXT_TORCH_IMPORT_H_
#define CUBRIDGE_CEXT_TORCH_IMPORT_H_

#include "arg.h"
#include "dlpack.h"

#define CB_TORCH_NAMES 10

/* torch, from the first torch.Tensor seen on. */
typedef struct cb_torch {
  int ready;                       /* 1: the objects below are set */
  PyObject* dtypes[CB_MAX_DTYPES]; /* torch.float32, ... in ABI order; NULL: none */
  PyObject* strided;               /* torch.strided */
  PyObject* names[CB_TORCH_NAMES]; /* interned attribute names */
  /* torch.Tensor and its DLPack C exchange entry (torch >= 2.10), which fills a
   * DLTensor for exact torch.Tensor instances; NULL: the attributes are read. */
  PyObject* tensor;
  DLPackDLTensorFromPyObjectNoSync dl_fill;
  /* torch's current stream of a device: the exchange table's entry, else
   * torch.cuda.current_stream (a function, NULL until a CUDA tensor needs it). */
  DLPackCurrentWorkStream work_stream;
  PyObject* current_stream;
} cb_torch;

int cb_torch_traverse(cb_module* m, visitproc visit, void* arg);
void cb_torch_clear(cb_module* m);

/* Returned (no exception set) when the tensor needs torch's own protocols:
 * it requires grad, is not strided (sparse), or lives on a device other than
 * the CPU and CUDA. The caller then uses the generic path, whose errors are
 * torch's. */
#define CB_TORCH_GENERIC (-2)

/* Fills `a` from the tensor `obj` (kept alive in a->keep). Neither way says
 * when the data is ready: for a CUDA tensor the producer is torch's current
 * stream of its device (as torch's __dlpack__(stream=) would order it), asked
 * unless `consumer` is CB_STREAM_UNORDERED. */
int cb_import_torch(cb_module* m, PyObject* obj, uintptr_t consumer, cb_arg* a);

/* 1 when torch tensors are read through the exchange table, -1 through their
 * attributes, 0 before the first (for tests). */
int cb_torch_state(const cb_module* m);

#endif /* CUBRIDGE_CEXT_TORCH_IMPORT_H_ */
