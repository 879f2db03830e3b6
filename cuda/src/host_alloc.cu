// See host_alloc.h.
#include <stdint.h>
#include <stdlib.h>

#include <mutex>

#include "host_alloc.h"
#include "status.h"
#include "tuning.h"

namespace cubridge {
namespace {

// Lies kAlign bytes before the block (which stays kAlign-aligned).
struct Header {
  uint64_t magic;
  size_t bytes;  // as asked
  size_t cap;    // usable bytes after the header
  bool counted;
};
static_assert(sizeof(Header) <= kAlign, "the header fits in front of the block");
constexpr uint64_t kMagic = 0x6375627269646765;  // "cubridge"
constexpr uint64_t kFreed = 0x667265656421;      // "freed!": a double free is refused

// Cached blocks: one singly linked free list per power-of-two class from
// kHostCacheMinClass to kHostCacheMaxClass bytes; larger blocks are not kept.
constexpr int kClasses = kHostCacheMaxClassLog2 - kHostCacheMinClassLog2 + 1;
struct FreeList {
  void* head = nullptr;  // the next block's pointer is stored in the block
};
std::mutex g_mu;
FreeList g_lists[kClasses];
size_t g_cached = 0;

Header* header_of(void* p) { return reinterpret_cast<Header*>(static_cast<char*>(p) - kAlign); }

// The class index of `bytes`, -1 when too large to cache; *cap its capacity.
int class_of(size_t bytes, size_t* cap) {
  int log2 = kHostCacheMinClassLog2;
  while ((size_t(1) << log2) < bytes && log2 <= kHostCacheMaxClassLog2) ++log2;
  if (log2 > kHostCacheMaxClassLog2) {
    *cap = (bytes + kAlign - 1) / kAlign * kAlign;
    return -1;
  }
  *cap = size_t(1) << log2;
  return log2 - kHostCacheMinClassLog2;
}

void* pop(int cls) {
  std::lock_guard<std::mutex> lk(g_mu);
  void* p = g_lists[cls].head;
  if (p) {
    g_lists[cls].head = *static_cast<void**>(p);
    g_cached -= size_t(1) << (cls + kHostCacheMinClassLog2);
  }
  return p;
}

bool push(int cls, void* p) {
  const size_t cap = size_t(1) << (cls + kHostCacheMinClassLog2);
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_cached + cap > kHostCacheMax) return false;
  *static_cast<void**>(p) = g_lists[cls].head;
  g_lists[cls].head = p;
  g_cached += cap;
  return true;
}

}  // namespace

cubridge_status host_alloc(const char* fn, size_t bytes, bool counted, void** p) {
  if (bytes > SIZE_MAX / 2) {  // no machine has it; and the rounding below cannot overflow
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: argument 'bytes' = %zu is too large", fn, bytes);
  }
  size_t cap = 0;
  const int cls = class_of(bytes, &cap);
  void* block = cls >= 0 ? pop(cls) : nullptr;
  if (!block) {
    char* raw = static_cast<char*>(aligned_alloc(kAlign, kAlign + cap));
    if (!raw) {
      return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory allocating %zu bytes", fn,
                  bytes);
    }
    block = raw + kAlign;
  }
  *header_of(block) = Header{kMagic, bytes, cap, counted};
  *p = block;
  return CUBRIDGE_OK;
}

cubridge_status host_free(const char* fn, void* p, size_t* bytes, bool* counted) {
  Header* h = header_of(p);
  if (h->magic != kMagic) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'ptr' = %p is not memory of cubridge_malloc or "
                "cubridge_malloc_async (or was freed already)",
                fn, p);
  }
  *bytes = h->bytes;
  *counted = h->counted;
  h->magic = kFreed;
  size_t cap = 0;
  const int cls = class_of(h->cap, &cap);  // a cached class's capacity is its own class
  if (cls < 0 || !push(cls, p)) free(h);
  return CUBRIDGE_OK;
}

void host_trim() {
  std::lock_guard<std::mutex> lk(g_mu);
  for (FreeList& l : g_lists) {
    while (l.head) {
      void* p = l.head;
      l.head = *static_cast<void**>(p);
      free(header_of(p));
    }
  }
  g_cached = 0;
}

size_t host_cached() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_cached;
}

}  // namespace cubridge
