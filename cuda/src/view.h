// Views of any producer's array (cubridge/runtime.h): the one check.
#ifndef CUBRIDGE_SRC_VIEW_H_
#define CUBRIDGE_SRC_VIEW_H_

#include "cubridge/runtime.h"

namespace cubridge {

// cubridge_view_check without clearing this thread's message first.
cubridge_status check_view(cubridge_view* v, int access);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_VIEW_H_
