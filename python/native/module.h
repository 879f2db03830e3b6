/* The state of cubridge._native (multi-phase init, PEP 489): one part per
 * unit, defined in that unit's header and made, visited and cleared by that
 * unit alone (module.c lists them, in order). Unit headers only see the
 * declaration in common.h; the unit's .c files include this header. */
#ifndef CUBRIDGE_CEXT_MODULE_H_
#define CUBRIDGE_CEXT_MODULE_H_

#include "array.h"
#include "backend.h"
#include "cupy_import.h"
#include "dtypes.h"
#include "errors.h"
#include "graph.h"
#include "known_types.h"
#include "names.h"
#include "results.h"
#include "signature.h"
#include "torch_import.h"

struct cb_module {
  cb_errors errors;     /* errors.c: cubridge.Error and one class per status */
  cb_dtypes dtypes;     /* dtypes.c: the C ABI's dtypes as Python spells them */
  cb_names names;       /* names.c: interned attribute names */
  cb_keywords keywords; /* signature.c: the ops' parameter names */
  cb_backend backend;   /* backend.c: the backend, asked once */
  cb_arrays arrays;     /* array_type.c: the Array type, memory-kind names */
  cb_types types;       /* known_types.c: what the readers learnt of types */
  cb_numpy numpy;       /* results.c: numpy.empty for host results */
  cb_torch torch;       /* torch_import.c */
  cb_cupy cupy;         /* cupy_import.c */
  cb_graph graph;       /* graph.c: the recording of a cubridge.Stream */
};

static inline cb_module* cb_module_of(PyObject* module) {
  return (cb_module*)PyModule_GetState(module);
}

/* The state of the module that defined `type` (the Array type's methods);
 * NULL with an error when there is none. */
cb_module* cb_module_of_type(PyTypeObject* type);

#endif /* CUBRIDGE_CEXT_MODULE_H_ */
