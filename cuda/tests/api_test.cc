// The ABI's contract: backend, names, bad input, memory, streams and events,
// and the shared test vectors.
#include <stdio.h>

#include <map>
#include <thread>

#include "test_util.h"
#include "vectors.h"

namespace cubridge_test {
namespace {

class PrintBackend : public ::testing::Environment {
 public:
  void SetUp() override {
    int b = -1, count = -1;
    cubridge_get_backend(&b);
    cubridge_device_count(&count);
    char name[256] = "";
    if (b == CUBRIDGE_BACKEND_CUDA) cubridge_device_name(0, name, sizeof(name));
    printf("cubridge %d: backend %s, %d device(s)%s%s\n", cubridge_version(),
           b == CUBRIDGE_BACKEND_CUDA ? "cuda" : "cpu", count, *name ? ", device 0: " : "", name);
  }
};
::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new PrintBackend);

// ---- library state ----------------------------------------------------------------

TEST(Library, NamesAndSizes) {
  EXPECT_EQ(cubridge_version(), CUBRIDGE_VERSION);
  EXPECT_STREQ(cubridge_status_name(CUBRIDGE_OK), "OK");
  EXPECT_STREQ(cubridge_status_name(CUBRIDGE_ERR_OUT_OF_MEMORY), "OUT_OF_MEMORY");
  EXPECT_STREQ(cubridge_status_name(CUBRIDGE_ERR_CUDA_STICKY), "CUDA_STICKY");
  EXPECT_STREQ(cubridge_status_name(99), "UNKNOWN");
  const std::pair<int, const char*> names[] = {
      {CUBRIDGE_FLOAT32, "float32"}, {CUBRIDGE_FLOAT64, "float64"},
      {CUBRIDGE_INT32, "int32"},     {CUBRIDGE_INT64, "int64"},
      {CUBRIDGE_FLOAT16, "float16"}, {CUBRIDGE_BFLOAT16, "bfloat16"}};
  const size_t sizes[] = {4, 8, 4, 8, 2, 2};
  for (int i = 0; i < 6; ++i) {
    EXPECT_STREQ(cubridge_dtype_name(names[i].first), names[i].second);
    EXPECT_EQ(cubridge_dtype_size(names[i].first), sizes[i]);
  }
  EXPECT_EQ(cubridge_dtype_name(6), nullptr);
  EXPECT_EQ(cubridge_dtype_size(-1), 0u);
  EXPECT_EQ(cubridge_sum_dtype(CUBRIDGE_INT32), CUBRIDGE_INT64);
  EXPECT_EQ(cubridge_sum_dtype(CUBRIDGE_FLOAT16), CUBRIDGE_FLOAT64);
  EXPECT_EQ(cubridge_sum_dtype(17), -1);
}

TEST(Library, BackendMatchesEnvironment) {
  int b = -1;
  ASSERT_EQ(cubridge_get_backend(&b), CUBRIDGE_OK);
  const char* env = getenv("CUBRIDGE_BACKEND");
  if (env && std::string(env) == "cpu") {
    EXPECT_EQ(b, CUBRIDGE_BACKEND_CPU);
  }
  if (env && std::string(env) == "cuda") {
    EXPECT_EQ(b, CUBRIDGE_BACKEND_CUDA);
  }
  int count = -1;
  ASSERT_EQ(cubridge_device_count(&count), CUBRIDGE_OK);
  if (b == CUBRIDGE_BACKEND_CPU) {
    EXPECT_EQ(count, 0);
  }
  size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cubridge_mem_info(&free_b, &total_b), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_GT(total_b, 0u);
  EXPECT_LE(free_b, total_b);
}

// ---- bad input: right status, a message naming the argument, no crash ------------

TEST(BadInput, NullPointersNamed) {
  float a[5] = {0}, out[5];
  EXPECT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, nullptr, out, 5, nullptr),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(cubridge_last_error(), "cubridge_add: argument 'b' is NULL but n = 5");
  ExpectError(cubridge_sub(CUBRIDGE_FLOAT32, nullptr, a, out, 5, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'a'");
  ExpectError(cubridge_mul(CUBRIDGE_FLOAT32, a, a, nullptr, 5, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'out'");
  ExpectError(cubridge_axpy(CUBRIDGE_FLOAT32, 1, nullptr, out, 5, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'x'");
  EXPECT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 1, nullptr, 5, nullptr),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  ExpectError(cubridge_axpy_out(CUBRIDGE_FLOAT32, 1, a, a, nullptr, 5, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'out'");
  ExpectError(cubridge_scale_out(CUBRIDGE_FLOAT32, 1, nullptr, out, 5, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'x'");
  EXPECT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1, nullptr, 5, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ExpectError(cubridge_convert(CUBRIDGE_FLOAT32, nullptr, CUBRIDGE_INT32, out, 5, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'src'");
  double r;
  EXPECT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, nullptr, 5, &r, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ExpectError(cubridge_sum(CUBRIDGE_FLOAT32, a, 5, nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "'result'");
  ExpectError(cubridge_dot(CUBRIDGE_FLOAT32, a, nullptr, 5, &r, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'y'");
  EXPECT_EQ(cubridge_min(CUBRIDGE_FLOAT32, nullptr, 5, &r, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  // Success clears the message.
  ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, a, out, 5, nullptr), CUBRIDGE_OK);
  EXPECT_STREQ(cubridge_last_error(), "");
}

TEST(BadInput, ZeroLengthAcceptsNull) {
  EXPECT_EQ(cubridge_add(CUBRIDGE_FLOAT32, nullptr, nullptr, nullptr, 0, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_div(CUBRIDGE_INT64, nullptr, nullptr, nullptr, 0, 0, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_fill(CUBRIDGE_FLOAT16, 1, nullptr, 0, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_convert(CUBRIDGE_INT32, nullptr, CUBRIDGE_FLOAT64, nullptr, 0, nullptr),
            CUBRIDGE_OK);
  double r = 5;
  EXPECT_EQ(cubridge_sum(CUBRIDGE_FLOAT64, nullptr, 0, &r, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(r, 0.0);
  int64_t ri = 5;
  EXPECT_EQ(cubridge_dot(CUBRIDGE_INT32, nullptr, nullptr, 0, &ri, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(ri, 0);
  ExpectError(cubridge_max(CUBRIDGE_FLOAT64, nullptr, 0, &r, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'n'");
}

TEST(BadInput, UnknownDtype) {
  float a[4] = {0}, out[4];
  for (int dt : {-1, 6, 1000}) {
    EXPECT_EQ(cubridge_add(dt, a, a, out, 4, nullptr), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
    EXPECT_NE(std::string(cubridge_last_error()).find("'dtype'"), std::string::npos)
        << cubridge_last_error();
    EXPECT_EQ(cubridge_scale(dt, 1, a, 4, nullptr), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
    ExpectError(cubridge_convert(dt, a, CUBRIDGE_FLOAT32, out, 4, nullptr),
                CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "'src_dtype'");
    ExpectError(cubridge_convert(CUBRIDGE_FLOAT32, a, dt, out, 4, nullptr),
                CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "'dst_dtype'");
    double r;
    EXPECT_EQ(cubridge_sum(dt, a, 4, &r, nullptr), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
    EXPECT_EQ(cubridge_min(dt, a, 4, &r, nullptr), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
  }
  // Still works afterwards.
  ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, a, out, 4, nullptr), CUBRIDGE_OK);
}

TEST(BadInput, HugeLength) {
  float a[1] = {0};
  ExpectError(cubridge_add(CUBRIDGE_FLOAT32, a, a, a, SIZE_MAX / 2, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'n'");
}

TEST(BadInput, MemoryCalls) {
  void* p = reinterpret_cast<void*>(1);
  ExpectError(cubridge_malloc(CUBRIDGE_MEMORY_HOST, 16, &p), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "'kind'");
  EXPECT_EQ(cubridge_malloc(42, 16, &p), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 16, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 0, &p), CUBRIDGE_OK);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, SIZE_MAX - 8, &p), CUBRIDGE_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(p, nullptr);
  ExpectError(cubridge_memcpy(nullptr, &p, 8, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT, "'dst'");
  char bytes[16] = {0};
  ExpectError(cubridge_memcpy(bytes + 1, bytes, 8, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "overlap");
  EXPECT_EQ(cubridge_memcpy(bytes, bytes, 8, nullptr), CUBRIDGE_OK);
  int kind;
  EXPECT_EQ(cubridge_pointer_kind(nullptr, &kind, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_stream_create(nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_event_record(nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  char buf[8];
  EXPECT_NE(cubridge_device_name(-1, buf, sizeof(buf)), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_device_name(0, nullptr, 8), CUBRIDGE_ERR_INVALID_ARGUMENT);
}

TEST(BadInput, MessagesAreThreadLocal) {
  EXPECT_EQ(cubridge_add(-5, nullptr, nullptr, nullptr, 1, nullptr),
            CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
  std::string other;
  std::thread t([&] { other = cubridge_last_error(); });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(cubridge_last_error()), "");
}

// ---- memory -------------------------------------------------------------------------

TEST(Memory, EveryKindAndEveryCopyPair) {
  const size_t n = 100003, bytes = n * sizeof(double);
  std::vector<double> src(n), back(n);
  for (size_t i = 0; i < n; ++i) src[i] = i * 0.5 - 7;
  const int kinds[] = {CUBRIDGE_MEMORY_DEVICE, CUBRIDGE_MEMORY_MANAGED, CUBRIDGE_MEMORY_PINNED};
  std::map<int, void*> p;
  for (int k : kinds) {
    ASSERT_EQ(cubridge_malloc(k, bytes, &p[k]), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_NE(p[k], nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p[k]) % 256, 0u);
    int kind = -1, dev = -2;
    ASSERT_EQ(cubridge_pointer_kind(p[k], &kind, &dev), CUBRIDGE_OK) << cubridge_last_error();
    if (OnCuda()) {
      EXPECT_EQ(kind, k);
    } else {
      EXPECT_EQ(kind, CUBRIDGE_MEMORY_HOST);
      EXPECT_EQ(dev, -1);
    }
  }
  int kind = -1;
  ASSERT_EQ(cubridge_pointer_kind(src.data(), &kind, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(kind, CUBRIDGE_MEMORY_HOST);
  // host -> k1 -> k2 -> host for every pair.
  for (int k1 : kinds) {
    for (int k2 : kinds) {
      std::fill(back.begin(), back.end(), 0);
      ASSERT_EQ(cubridge_memcpy(p[k1], src.data(), bytes, nullptr), CUBRIDGE_OK);
      ASSERT_EQ(cubridge_memcpy(p[k2], p[k1], bytes, nullptr), CUBRIDGE_OK)
          << cubridge_last_error();
      ASSERT_EQ(cubridge_stream_synchronize(nullptr), CUBRIDGE_OK);
      ASSERT_EQ(cubridge_memcpy(back.data(), p[k2], bytes, nullptr), CUBRIDGE_OK);
      EXPECT_EQ(back, src) << "kinds " << k1 << " -> " << k2;
    }
  }
  // Ops work on managed and pinned memory too.
  double* m = static_cast<double*>(p[CUBRIDGE_MEMORY_MANAGED]);
  ASSERT_EQ(cubridge_memcpy(m, src.data(), bytes, nullptr), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_prefetch(m, bytes, 0, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT64, 2.0, m, n, nullptr), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_prefetch(m, bytes, -1, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_device_synchronize(), CUBRIDGE_OK);
  for (size_t i = 0; i < n; i += 997) EXPECT_EQ(m[i], src[i] * 2);
  double* h = static_cast<double*>(p[CUBRIDGE_MEMORY_PINNED]);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT64, 3.0, h, n, nullptr), CUBRIDGE_OK);
  double s = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT64, h, n, &s, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(s, 3.0 * n);
  for (int k : kinds) ASSERT_EQ(cubridge_free(k, p[k]), CUBRIDGE_OK) << cubridge_last_error();
}

TEST(Memory, MixedPageableAndDeviceRejected) {
  if (!OnCuda()) GTEST_SKIP() << "all memory is host memory on the CPU backend";
  const size_t n = 64;
  void* d = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &d), CUBRIDGE_OK);
  std::vector<float> h(n);
  ExpectError(cubridge_add(CUBRIDGE_FLOAT32, h.data(), d, d, n, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'a'");
  EXPECT_EQ(cubridge_prefetch(d, n * 4, 0, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, d), CUBRIDGE_OK);
  // The library keeps working after the errors.
  ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, h.data(), h.data(), h.data(), n, nullptr), CUBRIDGE_OK);
}

// Pinned and pageable arrays together run on the host, on CPU threads (a few
// MiB, as here) or through the staging pipeline (more): either way after the
// work queued on `stream` that may still write the pinned array.
TEST(Memory, PinnedWithPageableWaitsForTheStream) {
  if (!OnCuda()) GTEST_SKIP() << "all memory is host memory on the CPU backend";
  for (size_t n : {size_t(1) << 20, size_t(24) << 20}) {  // CPU threads, then the pipeline
    void* x = nullptr;
    ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_PINNED, n * 4, &x), CUBRIDGE_OK);
    std::vector<float> zeros(n, 0.0f), out(n, -1.0f);
    cubridge_stream s = nullptr;
    ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, x, n, s), CUBRIDGE_OK);
    // Kernels over pinned memory cross the bus: milliseconds queued on s.
    for (int i = 0; i < 10; ++i)
      ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 2, x, n, s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, x, zeros.data(), out.data(), n, s), CUBRIDGE_OK)
        << cubridge_last_error();
    size_t wrong = 0;
    for (float v : out) wrong += v != 1024.0f;
    EXPECT_EQ(wrong, 0u) << "n = " << n << ": out[0] = " << out[0] << ", out[n-1] = " << out[n - 1];
    // Under capture the host-run op cannot be recorded: refused, the capture intact.
    ASSERT_EQ(cubridge_stream_begin_capture(s), CUBRIDGE_OK);
    ExpectError(cubridge_add(CUBRIDGE_FLOAT32, x, zeros.data(), out.data(), n, s),
                CUBRIDGE_ERR_INVALID_ARGUMENT, "cannot be recorded");
    ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 0.5, x, n, s), CUBRIDGE_OK);
    cubridge_graph g = nullptr;
    ASSERT_EQ(cubridge_stream_end_capture(s, &g), CUBRIDGE_OK) << cubridge_last_error();
    ASSERT_EQ(cubridge_graph_launch(g, s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, x, zeros.data(), out.data(), n, s), CUBRIDGE_OK);
    EXPECT_EQ(out[n - 1], 512.0f);
    EXPECT_EQ(cubridge_graph_destroy(g), CUBRIDGE_OK);
    EXPECT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
    EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_PINNED, x), CUBRIDGE_OK);
  }
}

// ---- streams and events ----------------------------------------------------------

TEST(Streams, AsyncOpsOnStreamsAndEventTiming) {
  cubridge_stream s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s1), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_stream_create(&s2), CUBRIDGE_OK);
  cubridge_event e0 = nullptr, e1 = nullptr;
  ASSERT_EQ(cubridge_event_create(&e0), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_create(&e1), CUBRIDGE_OK);
  float ms = -1;
  EXPECT_EQ(cubridge_event_elapsed_ms(e0, e1, &ms), CUBRIDGE_ERR_INVALID_ARGUMENT);
  const size_t n = (1 << 20) + 3;
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &a), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &b), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_record(e0, s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.5, a, n, s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2.0, b, n, s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, b, a, n, s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_record(e1, s1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_synchronize(e1), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_event_elapsed_ms(e0, e1, &ms), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_GE(ms, 0.0f);
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, a, n, &sum, s2), CUBRIDGE_OK);
  EXPECT_EQ(sum, 3.5 * n);
  float mx = 0;
  ASSERT_EQ(cubridge_max(CUBRIDGE_FLOAT32, a, n, &mx, s1), CUBRIDGE_OK);
  EXPECT_EQ(mx, 3.5f);
  ASSERT_EQ(cubridge_stream_synchronize(s1), CUBRIDGE_OK);
  // A wrapped foreign handle (the default stream here) is not owned.
  cubridge_stream w = nullptr;
  ASSERT_EQ(cubridge_stream_from_handle(0, &w), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 2, a, n, w), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_synchronize(w), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_destroy(w), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_min(CUBRIDGE_FLOAT32, a, n, &mx, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(mx, 7.0f);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, a), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, b), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_event_destroy(e0), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_event_destroy(e1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(s1), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(s2), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(nullptr), CUBRIDGE_OK);
}

// cubridge_stream_query never waits: done once synchronized, and at once on
// the CPU backend, whose ops finish before they return. (A query that sees
// work still queued is in comm_test's hung collective, which is sure to be.)
TEST(Streams, QueryTellsWhetherQueuedWorkIsDone) {
  ExpectError(cubridge_stream_query(nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "cubridge_stream_query: argument 'done' is NULL");
  cubridge_stream s = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK) << cubridge_last_error();
  const size_t n = size_t(1) << 24;
  void* a = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &a), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, a, n, s), CUBRIDGE_OK);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, a, a, n, s), CUBRIDGE_OK);
  int done = -1;
  ASSERT_EQ(cubridge_stream_query(s, &done), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_TRUE(done == 0 || done == 1) << done;
  if (Backend() == CUBRIDGE_BACKEND_CPU) EXPECT_EQ(done, 1);
  ASSERT_EQ(cubridge_stream_synchronize(s), CUBRIDGE_OK);
  done = -1;
  ASSERT_EQ(cubridge_stream_query(s, &done), CUBRIDGE_OK);
  EXPECT_EQ(done, 1);
  done = -1;
  ASSERT_EQ(cubridge_stream_query(nullptr, &done), CUBRIDGE_OK);  // the default stream
  EXPECT_TRUE(done == 0 || done == 1) << done;
  float mx = 0;
  ASSERT_EQ(cubridge_max(CUBRIDGE_FLOAT32, a, n, &mx, s), CUBRIDGE_OK);
  EXPECT_EQ(mx, 256.0f);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, a), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
}

TEST(Streams, ManyThreadsAtOnce) {
  std::vector<std::thread> ts;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([t, &ok] {
      const size_t n = 300001 + t;
      std::vector<double> a(n, 1.0 + t), b(n, 2.0), out(n);
      bool good = true;
      for (int r = 0; r < 5; ++r) {
        good &= cubridge_add(CUBRIDGE_FLOAT64, a.data(), b.data(), out.data(), n, nullptr) ==
                CUBRIDGE_OK;
        double s = 0;
        good &= cubridge_sum(CUBRIDGE_FLOAT64, out.data(), n, &s, nullptr) == CUBRIDGE_OK;
        good &= s == (3.0 + t) * n;
      }
      ok[t] = good;
    });
  }
  for (auto& t : ts) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
}

// Each stream that reduces gets scratch on the device; past a limit per
// device a new stream takes over the entry used longest ago, and a destroyed
// stream's goes to the next new one. The sums check that a handed-on entry
// starts clean. CUDA keeps memory of its own for streams, even destroyed ones:
// only what reductions on 400 live streams add is measured (each kept an entry
// of 33 KB before).
TEST(Streams, ReductionScratchStaysBoundedAsStreamsComeAndGo) {
  const size_t n = 1000;
  void *ones = nullptr, *twos = nullptr, *junk = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &ones), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &twos), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &junk), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, ones, n, nullptr), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2.0, twos, n, nullptr), CUBRIDGE_OK);
  for (int round = 0; round < 2; ++round) {  // the second: destroyed streams' entries reused
    std::vector<cubridge_stream> streams(400);
    for (auto& s : streams) ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK);
    for (auto s : streams) ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 0, junk, n, s), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_device_synchronize(), CUBRIDGE_OK);
    size_t free_before = 0, free_after = 0, total = 0;
    ASSERT_EQ(cubridge_mem_info(&free_before, &total), CUBRIDGE_OK);
    for (int pass = 0; pass < 2; ++pass) {  // the second pass: entries were handed on
      for (size_t i = 0; i < streams.size(); ++i) {
        double sum = 0;
        ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, i % 2 ? ones : twos, n, &sum, streams[i]),
                  CUBRIDGE_OK)
            << cubridge_last_error();
        ASSERT_EQ(sum, i % 2 ? 1000.0 : 2000.0) << "round " << round << ", stream " << i;
      }
    }
    ASSERT_EQ(cubridge_mem_info(&free_after, &total), CUBRIDGE_OK);
    const long long grown =
        static_cast<long long>(free_before) - static_cast<long long>(free_after);
    if (OnCuda()) {
      EXPECT_LT(grown, 8LL << 20) << "bytes of device memory more after 400 streams reduced";
    }
    for (auto s : streams) ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
  }
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, ones), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, twos), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, junk), CUBRIDGE_OK);
}

// ---- shared vectors ------------------------------------------------------------------

template <class S>
S ParseAs(const std::string& tok) {
  if constexpr (IsInt<S>()) {
    return static_cast<S>(ParseInt(tok));
  } else {
    return TypeInfo<S>::Down(static_cast<typename TypeInfo<S>::C>(ParseDouble(tok)));
  }
}

template <class S>
std::vector<S> ParseAll(const std::vector<std::string>& toks) {
  std::vector<S> v;
  for (const auto& t : toks) v.push_back(ParseAs<S>(t));
  return v;
}

template <class S>
void RunVectorCase(const VectorCase& c, Mem mem) {
  const int dt = TypeInfo<S>::dtype;
  std::vector<S> a = ParseAll<S>(c.a), b = ParseAll<S>(c.b);
  const size_t n = a.size(), bytes = n * sizeof(S);
  std::string what = c.file + ": " + c.name + " (" + MemName(mem) + ")";
  Buffer ba(mem, bytes), bb(mem, b.size() * sizeof(S)), bo(mem, bytes);
  ba.Upload(a.data(), bytes);
  bb.Upload(b.data(), b.size() * sizeof(S));
  const std::string& op = c.op;
  auto expect_elementwise = [&](Buffer& buf) {
    std::vector<S> got(n), want = ParseAll<S>(c.want);
    buf.Download(got.data(), bytes);
    ExpectSame(got, want, what);
  };
  if (op == "add" || op == "sub" || op == "mul" || op == "div") {
    ASSERT_EQ(b.size(), n) << what;
    cubridge_status st;
    if (op == "add") st = cubridge_add(dt, ba.get(), bb.get(), bo.get(), n, nullptr);
    if (op == "sub") st = cubridge_sub(dt, ba.get(), bb.get(), bo.get(), n, nullptr);
    if (op == "mul") st = cubridge_mul(dt, ba.get(), bb.get(), bo.get(), n, nullptr);
    if (op == "div") st = cubridge_div(dt, ba.get(), bb.get(), bo.get(), n, c.alpha, nullptr);
    ASSERT_EQ(st, CUBRIDGE_OK) << what << ": " << cubridge_last_error();
    expect_elementwise(bo);
  } else if (op == "axpy") {
    ASSERT_EQ(b.size(), n) << what;
    ASSERT_EQ(cubridge_axpy(dt, c.alpha, ba.get(), bb.get(), n, nullptr), CUBRIDGE_OK)
        << what << ": " << cubridge_last_error();
    expect_elementwise(bb);
  } else if (op == "scale") {
    ASSERT_EQ(cubridge_scale(dt, c.alpha, ba.get(), n, nullptr), CUBRIDGE_OK)
        << what << ": " << cubridge_last_error();
    expect_elementwise(ba);
  } else if (op == "fill") {
    ASSERT_EQ(cubridge_fill(dt, c.alpha, ba.get(), n, nullptr), CUBRIDGE_OK) << what;
    expect_elementwise(ba);
  } else if (op == "sum" || op == "dot") {
    ASSERT_EQ(c.want.size(), 1u) << what;
    unsigned char res[8];
    cubridge_status st = op == "sum" ? cubridge_sum(dt, ba.get(), n, res, nullptr)
                                     : cubridge_dot(dt, ba.get(), bb.get(), n, res, nullptr);
    ASSERT_EQ(st, CUBRIDGE_OK) << what << ": " << cubridge_last_error();
    if constexpr (IsInt<S>()) {
      int64_t got;
      memcpy(&got, res, 8);
      EXPECT_EQ(got, ParseInt(c.want[0])) << what;
    } else {
      double got;
      memcpy(&got, res, 8);
      EXPECT_TRUE(SameValue(got, ParseDouble(c.want[0]))) << what << ": got " << got;
    }
  } else if (op == "min" || op == "max") {
    ASSERT_EQ(c.want.size(), 1u) << what;
    S got;
    cubridge_status st = op == "min" ? cubridge_min(dt, ba.get(), n, &got, nullptr)
                                     : cubridge_max(dt, ba.get(), n, &got, nullptr);
    ASSERT_EQ(st, CUBRIDGE_OK) << what << ": " << cubridge_last_error();
    EXPECT_TRUE(SameValue(got, ParseAs<S>(c.want[0]))) << what << ": got " << AsDouble(got);
  } else {
    ADD_FAILURE() << what << ": unknown op " << op;
  }
}

TEST(Vectors, SharedVectorFiles) {
  const std::string dir = VectorsDir();
  std::vector<std::string> files = VectorFiles(dir);
  ASSERT_FALSE(files.empty()) << "no *.txt in " << dir
                              << " (set CUBRIDGE_VECTORS_DIR or run from the repository root)";
  size_t ran = 0;
  for (const auto& f : files) {
    std::vector<VectorCase> cases;
    std::string err;
    ASSERT_TRUE(ReadVectorFile(f, &cases, &err)) << err;
    for (const auto& c : cases) {
      for (Mem mem : {Mem::kHost, Mem::kDevice}) {
        if (c.dtype == "float32") {
          RunVectorCase<float>(c, mem);
        } else if (c.dtype == "float64") {
          RunVectorCase<double>(c, mem);
        } else if (c.dtype == "int32") {
          RunVectorCase<int32_t>(c, mem);
        } else if (c.dtype == "int64") {
          RunVectorCase<int64_t>(c, mem);
        } else if (c.dtype == "float16") {
          RunVectorCase<Half>(c, mem);
        } else if (c.dtype == "bfloat16") {
          RunVectorCase<BF16>(c, mem);
        } else {
          ADD_FAILURE() << f << ": " << c.name << ": unknown dtype " << c.dtype;
        }
      }
      ++ran;
    }
  }
  printf("ran %zu vector cases from %zu files in %s\n", ran, files.size(), dir.c_str());
  EXPECT_GT(ran, 0u);
}

}  // namespace
}  // namespace cubridge_test
