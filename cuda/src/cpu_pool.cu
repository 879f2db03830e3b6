// Persistent worker threads, started on first parallel use, never joined
// (between jobs they spin briefly, then sleep on a condition variable; the
// process may exit at any time).
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "cpu_pool.h"
#include "tuning.h"

namespace cubridge {
namespace {

// CPUs this process may run on: its affinity mask (taskset, a container's
// cpuset), not the machine's count; more threads than that only take turns.
int usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}

// Spins until ready() or until kPoolSpin has passed; true if ready() held.
template <class Ready>
bool spin_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kPoolSpin;
  for (int i = 0;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= deadline) return false;
  }
}

class Pool {
 public:
  Pool() {
    threads_ = std::min(usable_cpus(), 64);
    try {
      for (int i = 1; i < threads_; ++i) std::thread([this] { worker(); }).detach();
    } catch (...) {
      threads_ = 1;  // could not start threads: everything runs inline
    }
  }

  void run(size_t n, size_t grain, void (*fn)(void*, size_t, size_t), void* ctx) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock() || threads_ <= 1) {
      fn(ctx, 0, n);
      return;
    }
    size_t max_pieces = (n + grain - 1) / grain;
    size_t pieces = std::min<size_t>(max_pieces, static_cast<size_t>(threads_) * 4);
    {
      std::lock_guard<std::mutex> lk(mu_);
      fn_ = fn;
      ctx_ = ctx;
      n_ = n;
      pieces_ = pieces;
      next_.store(0);
      done_ = 0;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    work();
    // Wait for every piece and for every worker that joined this job to leave
    // it, so no worker can touch the next job's fields late.
    // The spin saves the sleep; the check under the lock is the one that
    // counts, in the same critical section that retires the job.
    auto finished = [&] { return done_.load() == pieces && active_.load() == 0; };
    spin_until(finished);
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, finished);
    fn_ = nullptr;
  }

 private:
  // Takes pieces until none are left; returns how many this thread ran.
  void work() {
    size_t ran = 0;
    for (;;) {
      size_t p = next_.fetch_add(1);
      if (p >= pieces_) break;
      size_t b = n_ * p / pieces_, e = n_ * (p + 1) / pieces_;
      fn_(ctx_, b, e);
      ++ran;
    }
    std::lock_guard<std::mutex> lk(mu_);
    done_ += ran;
    if (done_ == pieces_) done_cv_.notify_all();
  }

  // Workers spin for kPoolSpin after a job before they sleep: waking a
  // sleeping thread costs 5-20 us on a VM, more than a 1e5-element add takes.
  void worker() {
    unsigned long seen = 0;
    for (;;) {
      spin_until([&] { return generation_.load() != seen; });
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return generation_.load() != seen; });
        seen = generation_.load();
        if (!fn_) continue;
        ++active_;
      }
      work();
      std::lock_guard<std::mutex> lk(mu_);
      --active_;
      if (active_ == 0) done_cv_.notify_all();
    }
  }

  int threads_ = 1;
  std::mutex busy_;  // one parallel call at a time
  std::mutex mu_;    // guards the job's fields; done_ and active_ change under it
  std::condition_variable cv_, done_cv_;
  void (*fn_)(void*, size_t, size_t) = nullptr;
  void* ctx_ = nullptr;
  size_t n_ = 0, pieces_ = 0;
  std::atomic<size_t> done_{0};
  std::atomic<int> active_{0};  // workers inside work() for the current job
  std::atomic<size_t> next_{0};
  std::atomic<unsigned long> generation_{0};
};

Pool* pool() {
  // Leaked on purpose: detached workers may still reference it at exit.
  static Pool* p = new (std::nothrow) Pool();
  return p;
}

}  // namespace

#if defined(CUBRIDGE_CPU_DISPATCH)
namespace {

// The CPU features CUBRIDGE_DISABLE_CPU_FEATURES turns off (names split by
// commas or spaces, as NumPy's NPY_DISABLE_CPU_FEATURES): tests run every
// copy of the loops on one machine. Other names are reported and ignored.
struct Disabled {
  bool avx2 = false, avx512f = false;
};

Disabled read_disabled() {
  Disabled d;
  const char* env = getenv("CUBRIDGE_DISABLE_CPU_FEATURES");
  if (env == nullptr) return d;
  for (const char* p = env + strspn(env, ", "); *p; p += strspn(p, ", ")) {
    const size_t n = strcspn(p, ", ");
    if (n == 4 && strncasecmp(p, "avx2", n) == 0) {
      d.avx2 = true;
    } else if (n == 7 && strncasecmp(p, "avx512f", n) == 0) {
      d.avx512f = true;
    } else {
      fprintf(stderr,
              "cubridge: CUBRIDGE_DISABLE_CPU_FEATURES: ignoring '%.*s' (known: avx2, avx512f)\n",
              static_cast<int>(n), p);
    }
    p += n;
  }
  return d;
}

const Disabled& disabled() {
  static const Disabled d = read_disabled();
  return d;
}

}  // namespace

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && !disabled().avx2;
  return has;
}

bool cpu_has_avx512f() {
  static const bool has = __builtin_cpu_supports("avx512f") && !disabled().avx512f;
  return has;
}
#endif

void parallel_for(size_t n, size_t grain, void (*fn)(void*, size_t, size_t), void* ctx) {
  if (n == 0) return;
  if (grain == 0) grain = 1;
  if (n <= grain) {
    fn(ctx, 0, n);
    return;
  }
  Pool* p = pool();
  if (!p) {
    fn(ctx, 0, n);
    return;
  }
  p->run(n, grain, fn, ctx);
}

void parallel_memcpy(void* dst, const void* src, size_t bytes) {
  struct Ctx {
    char* d;
    const char* s;
  } ctx{static_cast<char*>(dst), static_cast<const char*>(src)};
  parallel_for(
      bytes, size_t(1) << 20,
      [](void* c, size_t b, size_t e) {
        Ctx* x = static_cast<Ctx*>(c);
        memcpy(x->d + b, x->s + b, e - b);
      },
      &ctx);
}

}  // namespace cubridge
