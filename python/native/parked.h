/* Device blocks parked behind the event of their last uses.
 *
 * An Array last used on a stream the library does not own (torch's, CuPy's) is
 * freed by making its device's default stream wait for its event, and its block
 * then serves the default stream only. So a new result on such a stream paid
 * for the CUDA pool, an event created, and that wait. A parked block keeps its
 * event instead and goes to the next new Array of the same size and device on
 * any stream, once that stream waited for the event; the new Array reuses the
 * event object. The event, not the stream, is what is waited for: a foreign
 * stream may be destroyed before its Arrays are freed. */
#ifndef CUBRIDGE_CEXT_PARKED_H_
#define CUBRIDGE_CEXT_PARKED_H_

#include "state.h"

/* Frees `ptr` (memory of `kind` on `device`) on that device's default stream
 * once `event` (may be NULL: no uses elsewhere) completes; should the stream
 * not wait, the host does. Nothing is raised: it runs in destructors. */
void cb_free_after(int kind, void* ptr, int device, cubridge_event event);
/* Parks `ptr` (`nbytes` of device memory on `device`, every use covered by
 * `event`, which the parking takes over); 0 when it is not kept (too large or
 * empty) and the caller frees it. The oldest parked block makes room. */
int cb_park(cb_state* st, void* ptr, size_t nbytes, int device, cubridge_event event);
/* A parked block of `nbytes` on `device` for work on `stream`, which first
 * waits for its event; *event is handed over. 0 on a miss. */
int cb_unpark(cb_state* st, size_t nbytes, int device, cubridge_stream stream, void** ptr,
              cubridge_event* event);
/* Frees the parked blocks on `device`, or on every device when it is < 0
 * (empty_cache, an allocation out of memory, the module's end). */
void cb_park_release(cb_state* st, int device);
/* Bytes parked on `device`. */
size_t cb_parked_bytes(const cb_state* st, int device);

#endif /* CUBRIDGE_CEXT_PARKED_H_ */
