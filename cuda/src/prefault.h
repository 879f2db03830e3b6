// Fault in the pages of a host output range ahead of the host pipeline's
// copies, on a thread of its own. A fresh result (numpy.empty, make([]T, n))
// has no pages yet: the kernel zeroes each one at its first write, which cost
// the pipeline about a third of its time (1e8 f32 add on the H200 host: 119 ms
// with a new result, 80 ms into an existing one). Done beside the transfers,
// that cost leaves the critical path.
#ifndef CUBRIDGE_SRC_PREFAULT_H_
#define CUBRIDGE_SRC_PREFAULT_H_

#include <stddef.h>

#include <atomic>
#include <thread>

namespace cubridge {

class Prefaulter {
 public:
  // Starts faulting [p, p + bytes) in `step`-byte pieces, first to last, when
  // the range is at least kPrefaultMinBytes; otherwise does nothing. Page
  // contents are left as they are (MADV_POPULATE_WRITE, Linux 5.14+; on an
  // older kernel the thread stops at its first refusal).
  Prefaulter(void* p, size_t bytes, size_t step);
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;
  // Stops early if still running, and joins.
  ~Prefaulter();

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_PREFAULT_H_
