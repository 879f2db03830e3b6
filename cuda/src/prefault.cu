// Prefaulter: see prefault.h.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "prefault.h"
#include "tuning.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14 (older C library headers lack it)
#endif

namespace cubridge {

Prefaulter::Prefaulter(void* p, size_t bytes, size_t step) {
  if (p == nullptr || bytes < kPrefaultMinBytes || step == 0) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // Whole pages inside the range only: the partial first and last pages may
  // hold other objects' data (faulting them would be harmless, but madvise
  // wants an aligned start).
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
  if (end <= begin) return;
  step = std::max<size_t>(step / page * page, page);
  try {
    thread_ = std::thread([this, begin, end, step] {
      for (uintptr_t at = begin; at < end && !stop_.load(std::memory_order_relaxed); at += step) {
        const size_t len = std::min<uintptr_t>(step, end - at);
        if (madvise(reinterpret_cast<void*>(at), len, MADV_POPULATE_WRITE) != 0) return;
      }
    });
  } catch (...) {  // system_error, or bad_alloc for the thread's state
    // No thread: the copies fault the pages themselves, as before.
  }
}

Prefaulter::~Prefaulter() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

}  // namespace cubridge
