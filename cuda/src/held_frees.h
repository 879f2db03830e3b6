// Frees held back while a stream of this library records a graph: created
// streams are ordered with the legacy default stream, so a free on the
// default stream (or queued into the recording) would end the recording with
// an error. Such frees wait for the last recording's end.
#ifndef CUBRIDGE_SRC_HELD_FREES_H_
#define CUBRIDGE_SRC_HELD_FREES_H_

#include <cuda_runtime_api.h>

#include "cubridge/runtime.h"

namespace cubridge {

// Bracket a recording on `stream` (cubridge_stream_begin_capture /
// end_capture, or the destroy of a stream that records); the last one to end
// frees what was held meanwhile. capture_ends is false, and does nothing,
// for a stream whose recording the library did not begin.
void capture_begins(cudaStream_t stream);
bool capture_ends(cudaStream_t stream);

// True when `a` is kept until the recordings under way end (the caller must
// not free it then).
bool hold_free(cubridge_array a);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_HELD_FREES_H_
