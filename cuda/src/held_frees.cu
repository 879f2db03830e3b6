// Frees held back during recordings (held_frees.h).
#include <mutex>
#include <new>
#include <vector>

#include "array.h"
#include "held_frees.h"

namespace cubridge {
namespace {

std::mutex g_mu;
int g_recordings = 0;
std::vector<cubridge_array>* g_held = nullptr;  // created on first use

}  // namespace

void capture_begins() {
  std::lock_guard<std::mutex> lk(g_mu);
  ++g_recordings;
}

void capture_ends() {
  std::vector<cubridge_array> held;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (--g_recordings > 0 || !g_held) return;
    held.swap(*g_held);
  }
  for (cubridge_array a : held) array_free_now(a);
}

bool hold_free(cubridge_array a) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_recordings == 0) return false;
  try {
    if (!g_held) g_held = new std::vector<cubridge_array>();
    g_held->push_back(a);
    return true;
  } catch (const std::bad_alloc&) {
    return false;  // freed now: the recording may fail, the memory is not lost
  }
}

}  // namespace cubridge
