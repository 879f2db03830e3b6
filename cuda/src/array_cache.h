// What the runtime's arrays leave behind for the next ones (array.cu):
//
// - Blocks of arrays whose last uses were on another library's stream (torch's,
//   CuPy's, a caller's), kept behind the event of those uses. Such a block
//   cannot go to the block cache (it serves streams whose end the library
//   sees), and freeing it costs the default stream a wait; kept, it goes to
//   the next array of its size and device on any such stream, once that
//   stream waited for the event. The event, not the stream, is waited for: a
//   foreign stream may be destroyed before its arrays are freed.
// - Spare events: an array's first record needs one, and cudaEventCreate
//   costs about a microsecond.
#ifndef CUBRIDGE_SRC_ARRAY_CACHE_H_
#define CUBRIDGE_SRC_ARRAY_CACHE_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cubridge/cubridge.h"

namespace cubridge {

// Keeps `ptr` (`bytes` of device memory of `device`, every use covered by
// `event`, which the cache takes over); false when it is not kept (empty,
// too large) and the caller frees it. The oldest block makes room.
bool array_cache_put(void* ptr, size_t bytes, int device, cubridge_event event);

// A kept block of `bytes` on `device` for work on `raw` (a stream of
// `device`), which waits for its event first; the event is handed over.
// False on a miss.
bool array_cache_take(size_t bytes, int device, cudaStream_t raw, void** ptr,
                      cubridge_event* event);

// Frees the kept blocks of `device` (-1: of every device), each once the
// default stream of its device waited for its event.
void array_cache_release(int device);

// Bytes kept for `device`.
size_t array_cache_bytes(int device);

// Frees `ptr` (memory of `kind` from cubridge_malloc_async, of `device` when
// device memory) on the default stream of its device once `event` (NULL:
// nothing to wait for) completes; should that stream not wait, the host
// waits. Nothing is reported: it runs where nobody can be told.
void free_after(int kind, void* ptr, int device, cubridge_event event);

// A spare event, or a new one; and back when done with it (it may still be
// waited for).
cubridge_status event_take(const char* fn, cubridge_event* event);
void event_give(cubridge_event event);

// Destroys the spare events (cubridge_shutdown).
void event_spares_release();

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ARRAY_CACHE_H_
