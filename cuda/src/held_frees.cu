// Frees held back during recordings (held_frees.h).
#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

#include "array.h"
#include "held_frees.h"

namespace cubridge {
namespace {

std::mutex g_mu;
int g_recordings = 0;
std::vector<cudaStream_t>* g_recording = nullptr;  // the streams recording; created on first use
std::vector<cubridge_array>* g_held = nullptr;     // created on first use

}  // namespace

void capture_begins(cudaStream_t stream) {
  std::lock_guard<std::mutex> lk(g_mu);
  ++g_recordings;  // counted even should the list not grow: frees are held then too
  try {
    if (!g_recording) g_recording = new std::vector<cudaStream_t>();
    g_recording->push_back(stream);
  } catch (const std::bad_alloc&) {
  }
}

bool capture_ends(cudaStream_t stream) {
  std::vector<cubridge_array> held;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (!g_recording) return false;
    auto it = std::find(g_recording->begin(), g_recording->end(), stream);
    if (it == g_recording->end()) return false;
    g_recording->erase(it);
    if (--g_recordings > 0 || !g_held) return true;
    held.swap(*g_held);
  }
  for (cubridge_array a : held) array_free_now(a);
  return true;
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
