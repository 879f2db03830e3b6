// The ABI added for devices, pools and event ordering: tables, device
// queries, cubridge_malloc_async/free_async and their stats, streams of a
// device, cubridge_stream_wait_event and cubridge_assume_device. Runs on both
// backends; the parts that need two GPUs skip with the reason when there are
// fewer.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace cubridge_test {
namespace {

int DeviceCount() {
  int count = 0;
  EXPECT_EQ(cubridge_device_count(&count), CUBRIDGE_OK);
  return count;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

cubridge_memory_stats Stats(int device) {
  cubridge_memory_stats s;
  memset(&s, 0, sizeof(s));
  s.struct_size = sizeof(s);
  EXPECT_EQ(cubridge_memory_stats_get(device, &s), CUBRIDGE_OK) << cubridge_last_error();
  return s;
}

// ---- tables ---------------------------------------------------------------------

TEST(Tables, DtypesStatusesMemoryKinds) {
  ASSERT_EQ(cubridge_dtype_count(), 6);
  for (int d = 0; d < cubridge_dtype_count(); ++d) {
    EXPECT_NE(cubridge_dtype_name(d), nullptr) << d;
    EXPECT_GT(cubridge_dtype_size(d), 0u) << d;
  }
  EXPECT_EQ(cubridge_dtype_name(cubridge_dtype_count()), nullptr);
  ASSERT_EQ(cubridge_status_count(), CUBRIDGE_ERR_INTERNAL + 1);
  for (int s = 0; s < cubridge_status_count(); ++s) {
    EXPECT_STRNE(cubridge_status_name(s), "UNKNOWN") << s;
  }
  EXPECT_STREQ(cubridge_status_name(cubridge_status_count()), "UNKNOWN");
  ExpectNameTable(cubridge_memory_name,
                  {{CUBRIDGE_MEMORY_HOST, "host"},
                   {CUBRIDGE_MEMORY_DEVICE, "device"},
                   {CUBRIDGE_MEMORY_MANAGED, "managed"},
                   {CUBRIDGE_MEMORY_PINNED, "pinned"}},
                  4);
  const int v = cubridge_cuda_version();
  EXPECT_TRUE(v == 0 || v >= 12000) << v;  // 0 only in a build without CUDA
}

// The CUDA version the build selected (--@cubridge//toolchains/cuda:version and
// mode, given by the BUILD file as "MAJOR.MINOR"; empty for a local toolkit).
TEST(Library, CudaVersionIsTheBuilds) {
  const char* want = std::getenv("CUBRIDGE_EXPECT_CUDA_VERSION");
  const int v = cubridge_cuda_version();
  if (want && *want) {
    int major = -1, minor = -1;
    ASSERT_EQ(std::sscanf(want, "%d.%d", &major, &minor), 2) << want;
    EXPECT_EQ(v, major * 1000 + minor * 10) << "built with " << v << ", expected " << want;
  }
  const int driver = cubridge_driver_version();
  EXPECT_GE(driver, 0);
  if (v == 0) {
    EXPECT_EQ(driver, 0);  // no CUDA at all
  }
  if (OnCuda()) {  // a device in use means a driver that runs this runtime's major
    EXPECT_GE(driver / 1000, v / 1000) << driver << " " << v;
  }
}

// ---- devices ----------------------------------------------------------------------

TEST(Devices, CurrentDeviceAndRange) {
  int dev = -7;
  ASSERT_EQ(cubridge_get_device(&dev), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cubridge_get_device(nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_check_device(0), CUBRIDGE_OK) << cubridge_last_error();
  const int count = OnCuda() ? DeviceCount() : 1;
  EXPECT_EQ(cubridge_check_device(count), CUBRIDGE_ERR_INVALID_ARGUMENT);
  std::string msg = cubridge_last_error();
  EXPECT_TRUE(Contains(msg, "cubridge_check_device")) << msg;
  EXPECT_TRUE(Contains(msg, "'device' = " + std::to_string(count))) << msg;
  EXPECT_EQ(cubridge_check_device(-1), CUBRIDGE_ERR_INVALID_ARGUMENT);
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cubridge_device_mem_info(0, &free_b, &total_b), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_GT(total_b, 0u);
  EXPECT_LE(free_b, total_b);
  EXPECT_EQ(cubridge_device_mem_info(count, &free_b, &total_b), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_device_mem_info(0, nullptr, &total_b), CUBRIDGE_ERR_INVALID_ARGUMENT);
}

TEST(Devices, CpuBackendHasOneHostDevice) {
  if (OnCuda()) GTEST_SKIP() << "CPU backend only (this run uses CUDA)";
  EXPECT_EQ(cubridge_check_device(1), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "one device, the host")) << cubridge_last_error();
  void* p = nullptr;
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 64, 1, nullptr, &p),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  cubridge_stream s = nullptr;
  EXPECT_EQ(cubridge_stream_create_on(1, &s), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cubridge_assume_device(1), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(cubridge_stream_create_on(0, &s), CUBRIDGE_OK) << cubridge_last_error();
  int dev = -1;
  ASSERT_EQ(cubridge_stream_device(s, &dev), CUBRIDGE_OK);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
}

// ---- stream-ordered pooled memory -----------------------------------------------

TEST(Pool, AllocFreeAndStats) {
  const cubridge_memory_stats before = Stats(-1);
  void* p = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 1000, -1, nullptr, &p), CUBRIDGE_OK)
      << cubridge_last_error();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  cubridge_memory_stats mid = Stats(0);
  EXPECT_EQ(mid.in_use_bytes, before.in_use_bytes + 1000);
  EXPECT_GE(mid.reserved_bytes, mid.in_use_bytes);
  EXPECT_GE(mid.peak_in_use_bytes, mid.in_use_bytes);
  EXPECT_EQ(mid.alloc_count, before.alloc_count + 1);
  // Usable by ops at once (on the same stream).
  std::vector<float> host(250, 2.0f), back(250);
  ASSERT_EQ(cubridge_memcpy(p, host.data(), 1000, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 3.0, p, 250, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, p, 250, &sum, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(sum, 1500.0);
  int kind = -1, dev = -5;
  ASSERT_EQ(cubridge_pointer_kind(p, &kind, &dev), CUBRIDGE_OK);
  if (OnCuda()) {
    EXPECT_EQ(kind, CUBRIDGE_MEMORY_DEVICE);
    EXPECT_EQ(dev, 0);
  }
  // Kind must match on the GPU backend (the block's origin is known).
  if (OnCuda()) {
    EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_PINNED, p, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(Contains(cubridge_last_error(), "DEVICE")) << cubridge_last_error();
  }
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  cubridge_memory_stats after = Stats(-1);
  EXPECT_EQ(after.in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(after.free_count, before.free_count + 1);
  EXPECT_GE(after.peak_in_use_bytes, before.in_use_bytes + 1000);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, nullptr, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_empty_cache(0), CUBRIDGE_OK) << cubridge_last_error();
  if (OnCuda()) {
    EXPECT_EQ(Stats(0).reserved_bytes, 0u) << "empty_cache left memory in an idle pool";
  }
}

// Blocks freed on a stream come back from the block cache on that stream:
// counted like any allocation, and given back to the driver by empty_cache,
// also those of a stream destroyed since.
TEST(Pool, BlockCacheCountsAndReleases) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: the block cache sits in front of the CUDA pools";
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK) << cubridge_last_error();
  const cubridge_memory_stats before = Stats(0);
  for (int i = 0; i < 100; ++i) {
    void* p = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4000 - i, -1, nullptr, &p), CUBRIDGE_OK)
        << cubridge_last_error();
    EXPECT_EQ(Stats(0).in_use_bytes, before.in_use_bytes + 4000 - i);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
  }
  const cubridge_memory_stats mid = Stats(0);
  EXPECT_EQ(mid.in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(mid.alloc_count, before.alloc_count + 100);
  EXPECT_EQ(mid.free_count, before.free_count + 100);
  cubridge_stream s = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK) << cubridge_last_error();
  void* q = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 5000, -1, s, &q), CUBRIDGE_OK)
      << cubridge_last_error();
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, s), CUBRIDGE_OK)
      << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(Stats(0).reserved_bytes, 0u) << "a cached block was not given back to the driver";
}

// A wrapper of a stream the library created (how Python passes a
// cubridge.Stream) shares that stream's cached blocks, counted in
// cached_bytes; destroying the wrapper keeps them, destroying the stream
// gives them back. A caller's own stream keeps none.
TEST(Pool, BlockCacheServesWrappersOfItsStreams) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: the block cache sits in front of the CUDA pools";
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(Stats(0).cached_bytes, 0u);
  cubridge_stream s = nullptr, w = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK) << cubridge_last_error();
  uintptr_t handle = 0;
  ASSERT_EQ(cubridge_stream_handle(s, &handle), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_from_handle(handle, &w), CUBRIDGE_OK) << cubridge_last_error();
  void *p = nullptr, *q = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4000, -1, w, &p), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, w), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).cached_bytes, 4096u) << "kept for the stream, in its size class";
  ASSERT_EQ(cubridge_stream_destroy(w), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4000, -1, s, &q), CUBRIDGE_OK);
  EXPECT_EQ(q, p) << "the stream itself gets the block its wrapper freed";
  EXPECT_EQ(Stats(0).cached_bytes, 0u);
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, s), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).cached_bytes, 4096u);
  ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).cached_bytes, 0u) << "destroying the stream gives its blocks back";
  // A caller's stream (the per-thread default stream: not the library's).
  ASSERT_EQ(cubridge_stream_from_handle(2, &w), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4000, -1, w, &p), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, w), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).cached_bytes, 0u) << "a caller's stream keeps no blocks";
  ASSERT_EQ(cubridge_stream_destroy(w), CUBRIDGE_OK);
}

// A block allocated on one stream and freed on another goes back to the pool
// (which reuses it for either): the cache holds no more of a stream's blocks
// than the stream had in use at once, however many pass through.
TEST(Pool, BlockCacheKeepsOnlyBlocksOfItsStream) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: the block cache sits in front of the CUDA pools";
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK) << cubridge_last_error();
  cubridge_stream s = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK) << cubridge_last_error();
  for (int i = 0; i < 20000; ++i) {  // 160 MiB in all
    void* p = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 8192, -1, s, &p), CUBRIDGE_OK)
        << cubridge_last_error();
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
  }
  ASSERT_EQ(cubridge_device_synchronize(), CUBRIDGE_OK);
  EXPECT_LE(Stats(0).reserved_bytes, uint64_t(64) << 20)
      << "blocks freed on another stream piled up";
  ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK) << cubridge_last_error();
}

// Sizes asked for once do not pile up in the cache: a miss gives the
// stream's cached blocks back to the pool before the pool serves it.
TEST(Pool, BlockCacheMissGivesTheStreamsBlocksBack) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: the block cache sits in front of the CUDA pools";
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK) << cubridge_last_error();
  for (size_t i = 0; i < 2000; ++i) {  // 2000 sizes from 4 KiB to 1 MiB: 1 GiB in all
    void* p = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4096 + i * 512, -1, nullptr, &p),
              CUBRIDGE_OK)
        << cubridge_last_error();
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
  }
  ASSERT_EQ(cubridge_device_synchronize(), CUBRIDGE_OK);
  EXPECT_LE(Stats(0).reserved_bytes, uint64_t(64) << 20) << "blocks of unused sizes piled up";
}

// A block freed on one stream is not handed to another before the first
// stream gets to the free: the second stream's write lands after the first's.
TEST(Pool, BlockCacheKeepsStreamsApart) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: the block cache sits in front of the CUDA pools";
  cubridge_stream s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s1), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_create(&s2), CUBRIDGE_OK) << cubridge_last_error();
  // 4 GiB to fill: keeps the first stream busy for about a millisecond.
  const size_t big_n = size_t(1) << 30, n = 1000;
  void* big = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, big_n * 4, -1, s1, &big), CUBRIDGE_OK)
      << cubridge_last_error();
  for (int round = 0; round < 20; ++round) {
    void *p = nullptr, *q = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, s1, &p), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 0.0, big, big_n, s1), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, p, n, s1), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, s1), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, s2, &q), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2.0, q, n, s2), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_stream_synchronize(s1), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_stream_synchronize(s2), CUBRIDGE_OK);
    double sum = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, q, n, &sum, s2), CUBRIDGE_OK);
    EXPECT_EQ(sum, 2000.0) << "round " << round << (q == p ? ": the first stream's block" : "");
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, s2), CUBRIDGE_OK);
  }
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, big, s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_destroy(s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_destroy(s2), CUBRIDGE_OK);
}

// The CPU backend's host blocks: freed ones are cached (reserved, not in use)
// until empty_cache; a double free and a pointer the library never gave out
// are refused by name, not passed to free().
TEST(Pool, CpuBackendCachesHostBlocks) {
  if (OnCuda()) GTEST_SKIP() << "CPU backend only (this run uses CUDA)";
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK);
  const cubridge_memory_stats before = Stats(0);
  void* p = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 3000, -1, nullptr, &p), CUBRIDGE_OK)
      << cubridge_last_error();
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK);
  const cubridge_memory_stats cached = Stats(0);
  EXPECT_EQ(cached.in_use_bytes, before.in_use_bytes);
  EXPECT_GE(cached.reserved_bytes, before.reserved_bytes + 3000);
  void* q = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 2900, -1, nullptr, &q), CUBRIDGE_OK);
  EXPECT_EQ(q, p) << "a block of the same size class is reused";
  EXPECT_EQ(Stats(0).in_use_bytes, before.in_use_bytes + 2900);
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "freed already")) << cubridge_last_error();
  std::vector<char> foreign(4096, 0);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, foreign.data() + 1024),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "not memory of cubridge_malloc"))
      << cubridge_last_error();
  // cubridge_malloc memory (not counted) goes through the same blocks.
  void* r = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 5000, &r), CUBRIDGE_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(r) % 256, 0u);
  EXPECT_EQ(Stats(0).in_use_bytes, before.in_use_bytes);
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, r, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).free_count, cached.free_count + 1);
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).reserved_bytes, Stats(0).in_use_bytes);
}

// The host-array pipeline stages through the pools: its buffers show up as
// reserved device memory, and empty_cache gives an idle staging set back.
TEST(Pool, HostStagingComesFromThePools) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: host arrays run on CPU threads on the CPU backend";
  const size_t n = size_t(4) << 20;  // 16 MiB per array: past the inline size, so staged
  std::vector<float> a(n, 1.0f), b(n, 2.0f), out(n, 0.0f);
  auto add = [&] {
    std::fill(out.begin(), out.end(), 0.0f);
    ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a.data(), b.data(), out.data(), n, nullptr),
              CUBRIDGE_OK)
        << cubridge_last_error();
    EXPECT_EQ(out[0], 3.0f);
    EXPECT_EQ(out[n - 1], 3.0f);
  };
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK);
  add();
  EXPECT_GE(Stats(0).reserved_bytes, uint64_t(9) << 22) << "3 slots x 3 buffers of 4 MiB";
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).reserved_bytes, 0u) << "the idle staging set went back to the pool";
  add();  // a new set
}

TEST(Pool, BadArguments) {
  void* p = reinterpret_cast<void*>(1);
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_HOST, 64, -1, nullptr, &p),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  EXPECT_TRUE(Contains(cubridge_last_error(), "'kind'")) << cubridge_last_error();
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 64, -1, nullptr, nullptr),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 64, -2, nullptr, &p),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 64, 4096, nullptr, &p),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "'device' = 4096")) << cubridge_last_error();
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 0, -1, nullptr, &p), CUBRIDGE_OK);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, SIZE_MAX, -1, nullptr, &p),
            CUBRIDGE_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(cubridge_free_async(7, nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  cubridge_memory_stats s;
  s.struct_size = 8;
  EXPECT_EQ(cubridge_memory_stats_get(-1, &s), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "struct_size")) << cubridge_last_error();
  // A caller built before cached_bytes: every older field, and nothing past them.
  s.struct_size = offsetof(cubridge_memory_stats, cached_bytes);
  s.cached_bytes = 12345;
  EXPECT_EQ(cubridge_memory_stats_get(-1, &s), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(s.struct_size, offsetof(cubridge_memory_stats, cached_bytes));
  EXPECT_EQ(s.cached_bytes, 12345u);
  EXPECT_EQ(cubridge_memory_stats_get(-1, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_empty_cache(4096), CUBRIDGE_ERR_INVALID_ARGUMENT);
}

TEST(Pool, EveryKindAndTheOtherFree) {
  for (int kind : {CUBRIDGE_MEMORY_DEVICE, CUBRIDGE_MEMORY_PINNED, CUBRIDGE_MEMORY_MANAGED}) {
    void* p = nullptr;
    ASSERT_EQ(cubridge_malloc_async(kind, 4096, -1, nullptr, &p), CUBRIDGE_OK)
        << cubridge_memory_name(kind) << ": " << cubridge_last_error();
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_INT32, 7, p, 1024, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    int64_t sum = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_INT32, p, 1024, &sum, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    EXPECT_EQ(sum, 7 * 1024);
    // cubridge_free takes pooled memory as well.
    ASSERT_EQ(cubridge_free(kind, p), CUBRIDGE_OK) << cubridge_last_error();
  }
  // cubridge_free_async takes cubridge_malloc memory.
  void* q = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 256, &q), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
}

TEST(Pool, ReuseAcrossStreamsAndThreads) {
  // Blocks freed on one stream and allocated on another: every result stays
  // right (the pool orders reuse after the free).
  cubridge_stream s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_create(&s2), CUBRIDGE_OK);
  const size_t n = 1 << 16;
  for (int round = 0; round < 20; ++round) {
    cubridge_stream sa = round % 2 ? s1 : s2, sb = round % 2 ? s2 : s1;
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, sa, &a), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, round, a, n, sa), CUBRIDGE_OK);
    double sum = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, a, n, &sum, sa), CUBRIDGE_OK);
    EXPECT_EQ(sum, double(round) * n);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a, sa), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, sb, &b), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, round + 1, b, n, sb), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, b, n, &sum, sb), CUBRIDGE_OK);
    EXPECT_EQ(sum, double(round + 1) * n);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, b, sb), CUBRIDGE_OK);
  }
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &bad] {
      for (int i = 0; i < 50; ++i) {
        void* p = nullptr;
        const size_t bytes = 4096 * (1 + (i + t) % 5);
        if (cubridge_malloc_async(CUBRIDGE_MEMORY_PINNED +
                                      (i % 2) * (CUBRIDGE_MEMORY_DEVICE - CUBRIDGE_MEMORY_PINNED),
                                  bytes, -1, nullptr, &p) != CUBRIDGE_OK) {
          ++bad[t];
          continue;
        }
        int64_t sum = 0;
        if (cubridge_fill(CUBRIDGE_INT64, t, p, bytes / 8, nullptr) != CUBRIDGE_OK ||
            cubridge_sum(CUBRIDGE_INT64, p, bytes / 8, &sum, nullptr) != CUBRIDGE_OK ||
            sum != int64_t(t) * int64_t(bytes / 8)) {
          ++bad[t];
        }
        int kind = i % 2 ? CUBRIDGE_MEMORY_DEVICE : CUBRIDGE_MEMORY_PINNED;
        if (cubridge_free_async(kind, p, nullptr) != CUBRIDGE_OK) ++bad[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
  EXPECT_EQ(cubridge_stream_destroy(s1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(s2), CUBRIDGE_OK);
}

TEST(Pool, OutOfMemoryReleasesTheCacheFirst) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: the CPU backend caches nothing";
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cubridge_device_mem_info(0, &free_b, &total_b), CUBRIDGE_OK);
  // Cache about 60% of the free memory, then ask for 60% again: only possible
  // if the cached block goes back to the driver first.
  const size_t big = free_b / 10 * 6;
  void* p = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, big, 0, nullptr, &p), CUBRIDGE_OK)
      << cubridge_last_error();
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK);
  EXPECT_GE(Stats(0).reserved_bytes, big);  // cached, not returned
  void* q = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, big + (big / 3), 0, nullptr, &q),
            CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, q, nullptr), CUBRIDGE_OK);
  // Truly too large: OUT_OF_MEMORY with a message, and the library still works.
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, total_b * 2, 0, nullptr, &q),
            CUBRIDGE_ERR_OUT_OF_MEMORY);
  EXPECT_TRUE(Contains(cubridge_last_error(), "out of device memory")) << cubridge_last_error();
  EXPECT_EQ(cubridge_empty_cache(0), CUBRIDGE_OK);
  float x[4] = {1, 2, 3, 4};
  double s = 0;
  EXPECT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, x, 4, &s, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(s, 10.0);
}

// ---- streams, events ----------------------------------------------------------------

TEST(Streams, StreamOfADeviceAndWaitEvent) {
  cubridge_stream producer = nullptr, consumer = nullptr;
  ASSERT_EQ(cubridge_stream_create_on(0, &producer), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_create_on(-1, &consumer), CUBRIDGE_OK) << cubridge_last_error();
  int dev = -1;
  ASSERT_EQ(cubridge_stream_device(producer, &dev), CUBRIDGE_OK);
  EXPECT_EQ(dev, 0);
  ASSERT_EQ(cubridge_stream_device(nullptr, &dev), CUBRIDGE_OK);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cubridge_stream_device(nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_stream_wait_event(consumer, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "'event'")) << cubridge_last_error();

  cubridge_event ev = nullptr;
  ASSERT_EQ(cubridge_event_create(&ev), CUBRIDGE_OK);
  // Never recorded: nothing to wait for.
  EXPECT_EQ(cubridge_stream_wait_event(consumer, ev), CUBRIDGE_OK) << cubridge_last_error();
  // Producer writes a large buffer, consumer reads it after waiting on the
  // event only (no host synchronisation in between).
  const size_t n = 1 << 22;
  void* buf = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 8, 0, producer, &buf), CUBRIDGE_OK)
      << cubridge_last_error();
  for (int round = 1; round <= 5; ++round) {
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT64, 0.0, buf, n, producer), CUBRIDGE_OK);
    for (int k = 0; k < round; ++k) {
      ASSERT_EQ(cubridge_axpy(CUBRIDGE_FLOAT64, 1.0, buf, buf, n, producer), CUBRIDGE_OK);
      ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT64, 0.5, buf, n, producer), CUBRIDGE_OK);
    }
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT64, round, buf, n, producer), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_event_record(ev, producer), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_EQ(cubridge_stream_wait_event(consumer, ev), CUBRIDGE_OK) << cubridge_last_error();
    double sum = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT64, buf, n, &sum, consumer), CUBRIDGE_OK)
        << cubridge_last_error();
    EXPECT_EQ(sum, double(round) * n) << "round " << round;
  }
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, buf, consumer), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_event_destroy(ev), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(producer), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(consumer), CUBRIDGE_OK);
}

// A default-stream handle wrapped for a device names that device's default
// stream, whichever device is current (how Python orders work on the arrays
// of another device); ops, events and synchronisation all take it.
TEST(Streams, DefaultStreamOfADevice) {
  cubridge_stream w = nullptr;
  EXPECT_EQ(cubridge_stream_from_handle_on(0, 0, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_stream_from_handle_on(0, 99, &w), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(cubridge_last_error(), "'device' = 99")) << cubridge_last_error();
  EXPECT_EQ(w, nullptr);
  const size_t n = 1 << 20;
  void* buf = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, 0, nullptr, &buf), CUBRIDGE_OK);
  cubridge_event ev = nullptr;
  ASSERT_EQ(cubridge_event_create(&ev), CUBRIDGE_OK);
  for (uintptr_t handle : {0, 1, 2}) {
    ASSERT_EQ(cubridge_stream_from_handle_on(handle, 0, &w), CUBRIDGE_OK) << cubridge_last_error();
    int dev = -1;
    ASSERT_EQ(cubridge_stream_device(w, &dev), CUBRIDGE_OK);
    EXPECT_EQ(dev, 0) << "handle " << handle;
    uintptr_t back = 99;
    ASSERT_EQ(cubridge_stream_handle(w, &back), CUBRIDGE_OK);
    EXPECT_EQ(back, OnCuda() ? handle : 0) << "the wrapper keeps the handle it was given";
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, double(handle + 1), buf, n, w), CUBRIDGE_OK)
        << cubridge_last_error();
    ASSERT_EQ(cubridge_event_record(ev, w), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_EQ(cubridge_stream_wait_event(w, ev), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_EQ(cubridge_stream_synchronize(w), CUBRIDGE_OK) << cubridge_last_error();
    double sum = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, buf, n, &sum, w), CUBRIDGE_OK);
    EXPECT_EQ(sum, double(handle + 1) * n) << "handle " << handle;
    EXPECT_EQ(cubridge_stream_destroy(w), CUBRIDGE_OK);
  }
  EXPECT_EQ(cubridge_event_destroy(ev), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, buf, nullptr), CUBRIDGE_OK);
}

// ---- assume_device ------------------------------------------------------------------

TEST(AssumeDevice, ClearedByTheNextOpWhateverItsOutcome) {
  EXPECT_EQ(cubridge_assume_device(-1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_assume_device(-2), CUBRIDGE_ERR_INVALID_ARGUMENT);
  void* p = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4000, 0, nullptr, &p), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.5, p, 1000, nullptr), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_assume_device(0), CUBRIDGE_OK) << cubridge_last_error();
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, p, 1000, &sum, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(sum, 1500.0);
  // A failing op clears it too: the host array after it is routed normally.
  ASSERT_EQ(cubridge_assume_device(0), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_add(99, p, p, p, 1000, nullptr), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
  std::vector<float> host(1000, 2.0f);
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, host.data(), 1000, &sum, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(sum, 2000.0);
  // Per thread: another thread's hint does not reach this one.
  std::thread([] { EXPECT_EQ(cubridge_assume_device(0), CUBRIDGE_OK); }).join();
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, host.data(), 1000, &sum, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, nullptr), CUBRIDGE_OK);
}

// ---- several GPUs ---------------------------------------------------------------------

// Skips unless the CUDA backend sees at least two devices.
#define NEED_TWO_GPUS()                                                                      \
  do {                                                                                       \
    if (!OnCuda()) GTEST_SKIP() << "needs the CUDA backend with 2+ GPUs (CPU backend)";      \
    if (DeviceCount() < 2) GTEST_SKIP() << "needs 2+ GPUs, this host has " << DeviceCount(); \
  } while (0)

TEST(MultiGpu, OpsRunOnTheArraysDeviceAndRestoreTheCallers) {
  NEED_TWO_GPUS();
  const int devs = DeviceCount();
  const size_t n = 1 << 20;
  for (int d = 0; d < devs; ++d) {
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, d, nullptr, &a), CUBRIDGE_OK)
        << cubridge_last_error();
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, d, nullptr, &b), CUBRIDGE_OK);
    int kind = -1, where = -1;
    ASSERT_EQ(cubridge_pointer_kind(a, &kind, &where), CUBRIDGE_OK);
    EXPECT_EQ(where, d);
    // The caller stays on device 0 throughout.
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2.0, a, n, nullptr), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 3.0, b, n, nullptr), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, b, b, n, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    double sum = 0, mx = 0, dot = 0;
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, b, n, &sum, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    EXPECT_EQ(sum, 5.0 * n) << "device " << d;
    ASSERT_EQ(cubridge_dot(CUBRIDGE_FLOAT32, a, b, n, &dot, nullptr), CUBRIDGE_OK);
    EXPECT_EQ(dot, 10.0 * n);
    float fmx = 0;
    ASSERT_EQ(cubridge_max(CUBRIDGE_FLOAT32, b, n, &fmx, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    mx = fmx;
    EXPECT_EQ(mx, 5.0);
    int cur = -1;
    ASSERT_EQ(cubridge_get_device(&cur), CUBRIDGE_OK);
    EXPECT_EQ(cur, 0) << "an op on device " << d << " left the caller on device " << cur;
    // A stream of the arrays' device works; the pool counts per device.
    cubridge_stream s = nullptr;
    ASSERT_EQ(cubridge_stream_create_on(d, &s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 2.0, b, n, s), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, b, n, &sum, s), CUBRIDGE_OK);
    EXPECT_EQ(sum, 10.0 * n);
    EXPECT_GE(Stats(d).in_use_bytes, 2 * n * 4);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a, s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, b, s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
  }
}

// cubridge_memcpy without a stream reaches pool memory of any device from
// device 0: host to device, within a device and between devices.
TEST(MultiGpu, CopiesReachEveryDevicesPoolMemory) {
  NEED_TWO_GPUS();
  const size_t n = 1000;
  std::vector<float> host(n), back(n, 0.0f);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  void* on0 = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, 0, nullptr, &on0), CUBRIDGE_OK);
  for (int d = 1; d < DeviceCount(); ++d) {
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, d, nullptr, &a), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, d, nullptr, &b), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_memcpy(a, host.data(), n * 4, nullptr), CUBRIDGE_OK)
        << "host to device " << d << ": " << cubridge_last_error();
    ASSERT_EQ(cubridge_memcpy(b, a, n * 4, nullptr), CUBRIDGE_OK)
        << "within device " << d << ": " << cubridge_last_error();
    ASSERT_EQ(cubridge_memcpy(on0, b, n * 4, nullptr), CUBRIDGE_OK)
        << "device " << d << " to device 0: " << cubridge_last_error();
    ASSERT_EQ(cubridge_memcpy(back.data(), on0, n * 4, nullptr), CUBRIDGE_OK)
        << cubridge_last_error();
    EXPECT_EQ(back, host) << "device " << d;
    int cur = -1;
    ASSERT_EQ(cubridge_get_device(&cur), CUBRIDGE_OK);
    EXPECT_EQ(cur, 0) << "a copy left the caller on device " << cur;
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a, nullptr), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, b, nullptr), CUBRIDGE_OK);
  }
  ASSERT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, on0, nullptr), CUBRIDGE_OK);
}

TEST(MultiGpu, MixedDevicesAndForeignStreamsRefused) {
  NEED_TWO_GPUS();
  const size_t n = 4096;
  void *a0 = nullptr, *a1 = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, 0, nullptr, &a0), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, 1, nullptr, &a1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a0, a0, a1, n, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  std::string msg = cubridge_last_error();
  EXPECT_TRUE(Contains(msg, "'a' is on device 0")) << msg;
  EXPECT_TRUE(Contains(msg, "'out' is on device 1")) << msg;
  double r = 0;
  EXPECT_EQ(cubridge_dot(CUBRIDGE_FLOAT32, a1, a0, n, &r, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  cubridge_stream s1 = nullptr;
  ASSERT_EQ(cubridge_stream_create_on(1, &s1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1, a0, n, s1), CUBRIDGE_ERR_INVALID_ARGUMENT);
  msg = cubridge_last_error();
  EXPECT_TRUE(Contains(msg, "'stream' is on device 1")) << msg;
  EXPECT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, a0, n, &r, s1), CUBRIDGE_ERR_INVALID_ARGUMENT);
  void* p = nullptr;
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 64, 0, s1, &p),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  // device -1 with a stream: the stream's device.
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 64, -1, s1, &p), CUBRIDGE_OK);
  int kind = -1, where = -1;
  ASSERT_EQ(cubridge_pointer_kind(p, &kind, &where), CUBRIDGE_OK);
  EXPECT_EQ(where, 1);
  // assume_device contradicting the stream.
  ASSERT_EQ(cubridge_assume_device(0), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1, a0, n, s1), CUBRIDGE_ERR_INVALID_ARGUMENT);
  // Still healthy: the refused calls changed nothing.
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1, a1, n, s1), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, a1, n, &r, s1), CUBRIDGE_OK);
  EXPECT_EQ(r, double(n));
  // An event recorded on device 1's stream, waited for by device 0's default.
  cubridge_event ev = nullptr;
  ASSERT_EQ(cubridge_event_create(&ev), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_record(ev, s1), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_stream_wait_event(nullptr, ev), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_event_synchronize(ev), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_event_destroy(ev), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, p, s1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a0, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a1, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(s1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK);
  EXPECT_EQ(Stats(1).reserved_bytes, 0u);
}

// With device 0 current, a wrapper of device 1's default stream records its
// events there, where ops on device 1's arrays given no stream run: events
// around long work on device 1 are that work apart (device 0's default
// stream, idle, would put them microseconds apart).
TEST(MultiGpu, DefaultStreamOfAnotherDevice) {
  NEED_TWO_GPUS();
  const size_t n = size_t(1) << 26;  // 256 MiB of float: a scale takes 0.1 ms or more
  void* a = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, 1, nullptr, &a), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, a, n, nullptr), CUBRIDGE_OK);
  cubridge_stream d1 = nullptr;
  ASSERT_EQ(cubridge_stream_from_handle_on(0, 1, &d1), CUBRIDGE_OK) << cubridge_last_error();
  cubridge_event start = nullptr, end = nullptr;
  ASSERT_EQ(cubridge_event_create(&start), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_create(&end), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_record(start, d1), CUBRIDGE_OK) << cubridge_last_error();
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 1.0, a, n, nullptr), CUBRIDGE_OK);
  }
  ASSERT_EQ(cubridge_event_record(end, d1), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_event_synchronize(end), CUBRIDGE_OK);
  float ms = 0;
  ASSERT_EQ(cubridge_event_elapsed_ms(start, end, &ms), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_GT(ms, 1.0f) << "the events did not bracket the 50 scales on device 1";
  // Waits queued on it, and its synchronisation, reach device 1 too.
  ASSERT_EQ(cubridge_stream_wait_event(d1, end), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_synchronize(d1), CUBRIDGE_OK) << cubridge_last_error();
  int cur = -1;
  ASSERT_EQ(cubridge_get_device(&cur), CUBRIDGE_OK);
  EXPECT_EQ(cur, 0) << "the wrapper left the caller on device " << cur;
  EXPECT_EQ(cubridge_event_destroy(start), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_event_destroy(end), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(d1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, a, nullptr), CUBRIDGE_OK);
}

// While a stream records a graph, cubridge_stream_is_capturing says so and an
// allocation on it is refused by name (the memory would belong to the graph's
// launches); what was recorded still replays.
TEST(Graph, RecordingRefusesAllocation) {
  int capturing = -1;
  EXPECT_EQ(cubridge_stream_is_capturing(nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(cubridge_stream_is_capturing(nullptr, &capturing), CUBRIDGE_OK);
  EXPECT_EQ(capturing, 0) << "the default stream never records";
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: graphs are CUDA's";
  const size_t n = 1000;
  cubridge_stream s = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK) << cubridge_last_error();
  void* x = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, s, &x), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, x, n, s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_begin_capture(s), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_is_capturing(s, &capturing), CUBRIDGE_OK);
  EXPECT_EQ(capturing, 1);
  void* p = nullptr;
  EXPECT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, 4000, -1, s, &p),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(cubridge_last_error()).find("recording a graph"), std::string::npos)
      << cubridge_last_error();
  EXPECT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 2.0, x, n, s), CUBRIDGE_OK) << cubridge_last_error();
  // The same CUDA stream wrapped by handle, as the Python front end wraps a
  // caller's stream: the wrapper does not ask for its device (that would end
  // the recording), and its ops are recorded too.
  uintptr_t handle = 0;
  ASSERT_EQ(cubridge_stream_handle(s, &handle), CUBRIDGE_OK);
  cubridge_stream w = nullptr;
  ASSERT_EQ(cubridge_stream_from_handle(handle, &w), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_is_capturing(w, &capturing), CUBRIDGE_OK);
  EXPECT_EQ(capturing, 1);
  EXPECT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 2.0, x, n, w), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_stream_destroy(w), CUBRIDGE_OK);
  cubridge_graph g = nullptr;
  ASSERT_EQ(cubridge_stream_end_capture(s, &g), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_is_capturing(s, &capturing), CUBRIDGE_OK);
  EXPECT_EQ(capturing, 0);
  ASSERT_EQ(cubridge_graph_launch(g, s), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_graph_launch(g, s), CUBRIDGE_OK) << cubridge_last_error();
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, x, n, &sum, s), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(sum, 16.0 * n) << "two launches of two recorded scales by 2";
  EXPECT_EQ(cubridge_graph_destroy(g), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, x, s), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
}

}  // namespace
}  // namespace cubridge_test
