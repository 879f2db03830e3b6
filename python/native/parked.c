/* Device blocks parked behind the event of their last uses (parked.h). */
#include "parked.h"

#include <string.h>

#include "stream.h"

/* Larger blocks go back to the pool: a few parked blocks of this size at most
 * stay out of it (the library's own block cache keeps blocks up to 32 MiB). */
#define CB_PARK_MAX_BYTES ((size_t)32 << 20)

void cb_free_after(int kind, void* ptr, int device, cubridge_event event) {
  if (event != NULL) {
    cubridge_stream home = NULL;
    if (cubridge_stream_from_handle_on(0, cb_home_device(kind, device), &home) != CUBRIDGE_OK ||
        cubridge_stream_wait_event(home, event) != CUBRIDGE_OK) {
      Py_BEGIN_ALLOW_THREADS;
      (void)cubridge_event_synchronize(event);
      Py_END_ALLOW_THREADS;
    }
    cb_stream_release(home);
  }
  (void)cubridge_free_async(kind, ptr, NULL);
}

/* Takes entry `i` out, keeping the others in parking order (oldest first). */
static cb_parked cb_park_take(cb_state* st, int i) {
  cb_parked p = st->parked[i];
  memmove(&st->parked[i], &st->parked[i + 1],
          sizeof(cb_parked) * (size_t)(st->parked_count - i - 1));
  st->parked_count--;
  return p;
}

static void cb_park_free(cb_parked p) {
  cb_free_after(CUBRIDGE_MEMORY_DEVICE, p.ptr, p.device, p.event);
  (void)cubridge_event_destroy(p.event);
}

/* The list is whole before anything that may release the GIL (cb_free_after
 * can wait): another thread may park or unpark meanwhile. */
int cb_park(cb_state* st, void* ptr, size_t nbytes, int device, cubridge_event event) {
  if (nbytes == 0 || nbytes > CB_PARK_MAX_BYTES || event == NULL) return 0;
  int evict = st->parked_count == CB_PARKED_MAX;
  cb_parked oldest = evict ? cb_park_take(st, 0) : (cb_parked){0};
  st->parked[st->parked_count++] = (cb_parked){ptr, nbytes, device, event};
  if (evict) cb_park_free(oldest);
  return 1;
}

int cb_unpark(cb_state* st, size_t nbytes, int device, cubridge_stream stream, void** ptr,
              cubridge_event* event) {
  for (int i = st->parked_count - 1; i >= 0; i--) { /* the newest first: likely done */
    const cb_parked* p = &st->parked[i];
    if (p->nbytes != nbytes || p->device != device) continue;
    if (cubridge_stream_wait_event(stream, p->event) != CUBRIDGE_OK) return 0;
    cb_parked taken = cb_park_take(st, i);
    *ptr = taken.ptr;
    *event = taken.event;
    return 1;
  }
  return 0;
}

void cb_park_release(cb_state* st, int device) {
  cb_parked taken[CB_PARKED_MAX];
  int count = 0;
  for (int i = st->parked_count - 1; i >= 0; i--) {
    if (device < 0 || st->parked[i].device == device) taken[count++] = cb_park_take(st, i);
  }
  for (int i = 0; i < count; i++) cb_park_free(taken[i]);
}

size_t cb_parked_bytes(const cb_state* st, int device) {
  size_t bytes = 0;
  for (int i = 0; i < st->parked_count; i++) {
    if (st->parked[i].device == device) bytes += st->parked[i].nbytes;
  }
  return bytes;
}
