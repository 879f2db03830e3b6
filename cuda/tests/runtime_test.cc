// The runtime ABI (cubridge/runtime.h): arrays that know when they are ready,
// the one view check, calls, the device guard, and cubridge_shutdown. The
// checks run on both backends; the orderings need a GPU (on the CPU backend
// every op has finished when it returns) and skip there. The suite ends with
// cubridge_shutdown, so that a leak checker at exit sees nothing the library
// kept for itself.
#include "cubridge/runtime.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace cubridge_test {
namespace {

bool Has(const char* text, const std::string& part) {
  return std::string(text).find(part) != std::string::npos;
}

cubridge_memory_stats Stats(int device) {
  cubridge_memory_stats s;
  memset(&s, 0, sizeof(s));
  s.struct_size = sizeof(s);
  EXPECT_EQ(cubridge_memory_stats_get(device, &s), CUBRIDGE_OK) << cubridge_last_error();
  return s;
}

cubridge_array_info Info(cubridge_array a) {
  cubridge_array_info info;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  EXPECT_EQ(cubridge_array_get_info(a, &info), CUBRIDGE_OK) << cubridge_last_error();
  return info;
}

// A view of `n` float32 elements at `data` of `memory`, named `name`.
struct View {
  int64_t shape[1];
  cubridge_view v;
  View(const char* name, void* data, int64_t n, int memory = CUBRIDGE_MEMORY_HOST) {
    memset(&v, 0, sizeof(v));
    v.struct_size = sizeof(v);
    v.name = name;
    v.data = data;
    v.dtype = CUBRIDGE_FLOAT32;
    v.ndim = 1;
    shape[0] = n;
    v.shape = shape;
    v.memory = memory;
    v.device = memory == CUBRIDGE_MEMORY_HOST ? -1 : 0;
  }
};

// Shuts the library down at the end of the suite (gtest's global teardown).
class ShutdownAtExit : public ::testing::Environment {
 public:
  void TearDown() override {
    EXPECT_EQ(cubridge_shutdown(), CUBRIDGE_OK) << cubridge_last_error();
    if (OnCuda()) {
      const cubridge_memory_stats s = Stats(0);
      EXPECT_EQ(s.cached_bytes, 0u);
      EXPECT_EQ(s.scratch_bytes, 0u);
    }
  }
};
::testing::Environment* const kShutdown = ::testing::AddGlobalTestEnvironment(new ShutdownAtExit);

// ---- arrays ---------------------------------------------------------------------

TEST(RuntimeArray, CreateInfoDestroy) {
  const cubridge_memory_stats before = Stats(0);
  cubridge_array a = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 4000, -1, nullptr, &a), CUBRIDGE_OK)
      << cubridge_last_error();
  const cubridge_array_info info = Info(a);
  EXPECT_NE(info.data, nullptr);
  EXPECT_EQ(info.bytes, 4000u);
  EXPECT_EQ(info.kind, CUBRIDGE_MEMORY_DEVICE);
  EXPECT_EQ(info.device, 0);
  EXPECT_EQ(Stats(0).in_use_bytes, before.in_use_bytes + 4000);
  // Usable by the ops, ordered like any other use.
  ASSERT_EQ(cubridge_array_acquire(a, nullptr, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2.0, info.data, 1000, nullptr), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_release(a, nullptr, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, info.data, 1000, &sum, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(sum, 2000.0);
  EXPECT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(cubridge_array_destroy(nullptr), CUBRIDGE_OK);

  cubridge_array empty = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_PINNED, 0, -1, nullptr, &empty), CUBRIDGE_OK);
  EXPECT_EQ(Info(empty).data, nullptr);
  EXPECT_EQ(cubridge_array_sync(empty, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_array_destroy(empty), CUBRIDGE_OK);
}

TEST(RuntimeArray, BadArguments) {
  cubridge_array a = nullptr;
  ExpectError(cubridge_array_create(CUBRIDGE_MEMORY_HOST, 8, -1, nullptr, &a),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'kind'");
  ExpectError(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 8, -2, nullptr, &a),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'device'");
  ExpectError(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 8, 4096, nullptr, &a),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'device'");
  ExpectError(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 8, -1, nullptr, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'array'");
  ExpectError(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, size_t(1) << 62, -1, nullptr, &a),
              CUBRIDGE_ERR_OUT_OF_MEMORY, "");
  EXPECT_EQ(a, nullptr);
  ExpectError(cubridge_array_acquire(nullptr, nullptr, CUBRIDGE_ACCESS_READ),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "'array'");
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 8, -1, nullptr, &a), CUBRIDGE_OK);
  ExpectError(cubridge_array_release(a, nullptr, 7), CUBRIDGE_ERR_INVALID_ARGUMENT, "'access'");
  ExpectError(cubridge_array_sync(a, 0), CUBRIDGE_ERR_INVALID_ARGUMENT, "'access'");
  cubridge_array_info small;
  small.struct_size = 4;
  ExpectError(cubridge_array_get_info(a, &small), CUBRIDGE_ERR_INVALID_ARGUMENT, "struct_size");
  EXPECT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
}

// An export makes the block unfit for the array cache; *pending says whether
// a write may still run on the default stream.
TEST(RuntimeArray, ExportSaysWhetherAWriteIsPending) {
  cubridge_array a = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 64, -1, nullptr, &a), CUBRIDGE_OK);
  int pending = -1;
  ASSERT_EQ(cubridge_array_export(a, &pending), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(pending, OnCuda() ? 1 : 0) << "the allocation counts as a write on its stream";
  ASSERT_EQ(cubridge_array_sync(a, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_export(a, &pending), CUBRIDGE_OK);
  EXPECT_EQ(pending, 0) << "the host waited for the write";
  EXPECT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
}

// ---- views ----------------------------------------------------------------------

TEST(RuntimeView, OneCheckNamesTheArgument) {
  float data[6] = {0};
  View ok("x", data, 6);
  ASSERT_EQ(cubridge_view_check(&ok.v, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(ok.v.n, 6u);
  EXPECT_EQ(ok.v.nbytes, 24u);

  View neg("x", data, -3);
  ExpectError(cubridge_view_check(&neg.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "x has a negative dimension (-3 in dimension 0)");
  View dims("y", data, 6);
  dims.v.ndim = CUBRIDGE_MAX_NDIM + 1;
  ExpectError(cubridge_view_check(&dims.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "y has 65 dimensions; cubridge supports at most 64");
  int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40};
  View big("z", data, 0);
  big.v.ndim = 2;
  big.v.shape = huge;
  ExpectError(cubridge_view_check(&big.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "z is too large");
  int64_t empty_huge[3] = {int64_t(1) << 40, int64_t(1) << 40, 0};
  big.v.ndim = 3;
  big.v.shape = empty_huge;
  EXPECT_EQ(cubridge_view_check(&big.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK) << "empty: no bytes";
  EXPECT_EQ(big.v.n, 0u);

  View dtype("a", data, 6);
  dtype.v.dtype = -1;
  dtype.v.dtype_desc = "torch.uint8";
  ExpectError(cubridge_view_check(&dtype.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_UNSUPPORTED_DTYPE,
              "a has unsupported dtype torch.uint8; cubridge supports float32, float64, int32, "
              "int64, float16 and bfloat16");

  int64_t shape2[2] = {2, 3}, strided[2] = {1, 2}, contiguous[2] = {3, 1};
  int64_t halves[2] = {3, CUBRIDGE_STRIDE_NOT_WHOLE};
  View s("b", data, 0);
  s.v.ndim = 2;
  s.v.shape = shape2;
  s.v.strides = contiguous;
  EXPECT_EQ(cubridge_view_check(&s.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  s.v.strides = strided;
  ExpectError(cubridge_view_check(&s.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "b must be C-contiguous (its stride 2 elements in dimension 1 should be 1)");
  s.v.strides = halves;
  ExpectError(cubridge_view_check(&s.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "not a multiple of the item size");

  View ro("out", data, 6);
  ro.v.flags = CUBRIDGE_VIEW_READONLY;
  EXPECT_EQ(cubridge_view_check(&ro.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  ExpectError(cubridge_view_check(&ro.v, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "out is read-only");

  cubridge_view old;
  memset(&old, 0, sizeof(old));
  old.struct_size = 8;
  ExpectError(cubridge_view_check(&old, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "struct_size");
}

// CUDA memory that a producer hands over is refused on the CPU backend, naming
// the producer; the runtime's own arrays are host memory there.
TEST(RuntimeView, CpuBackendRefusesCudaMemory) {
  if (OnCuda()) GTEST_SKIP() << "the CPU backend's rule";
  float data[4] = {0};
  View v("x", data, 4, CUBRIDGE_MEMORY_DEVICE);
  v.v.source = "a CuPy array";
  ExpectError(cubridge_view_check(&v.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "x is CUDA device memory (a CuPy array), which the CPU backend cannot use");
  cubridge_array a = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 16, -1, nullptr, &a), CUBRIDGE_OK);
  View ours("x", Info(a).data, 4, CUBRIDGE_MEMORY_DEVICE);
  ours.v.array = a;
  EXPECT_EQ(cubridge_view_check(&ours.v, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
}

// What the producer leaves unsaid (a CUDA array interface: "CUDA memory"),
// the runtime asks: pinned memory is found to be pinned.
TEST(RuntimeView, AskMemoryFindsWhatItIs) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: CUDA says where memory lives";
  cubridge_array a = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_PINNED, 16, -1, nullptr, &a), CUBRIDGE_OK);
  View v("x", Info(a).data, 4, CUBRIDGE_MEMORY_DEVICE);
  v.v.flags = CUBRIDGE_VIEW_ASK_MEMORY;
  ASSERT_EQ(cubridge_view_check(&v.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(v.v.memory, CUBRIDGE_MEMORY_PINNED);
  EXPECT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
}

// ---- calls ----------------------------------------------------------------------

TEST(RuntimeCall, GathersCheckedArguments) {
  cubridge_array a = nullptr, out = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 400, -1, nullptr, &a), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 400, -1, nullptr, &out), CUBRIDGE_OK);
  View va("a", Info(a).data, 100, CUBRIDGE_MEMORY_DEVICE),
      vo("out", Info(out).data, 100, CUBRIDGE_MEMORY_DEVICE);
  va.v.array = a;
  vo.v.array = out;
  cubridge_call c;
  memset(&c, 0, sizeof(c));
  c.struct_size = sizeof(c);
  ASSERT_EQ(cubridge_call_begin(&c, nullptr, CUBRIDGE_CALL_FOLLOW_PRODUCER), CUBRIDGE_OK);
  EXPECT_EQ(c.capturing, 0);
  ASSERT_EQ(cubridge_call_add(&c, &va.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_call_add(&c, &vo.v, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  EXPECT_EQ(c.count, 2);
  EXPECT_EQ(c.device, OnCuda() ? 0 : -1) << "one device for every argument";
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.5, va.v.data, 100, c.stream), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, va.v.data, va.v.data, vo.v.data, 100, c.stream),
            CUBRIDGE_OK);
  ASSERT_EQ(cubridge_call_end(&c, CUBRIDGE_OK), CUBRIDGE_OK) << cubridge_last_error();
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, vo.v.data, 100, &sum, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(sum, 300.0);

  // A failed check names the argument; the call's own status and message
  // survive its end.
  float host[4];
  View bad("b", host, 4);
  bad.v.flags = CUBRIDGE_VIEW_READONLY;
  ASSERT_EQ(cubridge_call_begin(&c, nullptr, 0), CUBRIDGE_OK);
  ExpectError(cubridge_call_add(&c, &bad.v, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "b is read-only");
  EXPECT_EQ(cubridge_call_end(&c, CUBRIDGE_ERR_INVALID_ARGUMENT), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "b is read-only")) << cubridge_last_error();

  ExpectError(cubridge_call_begin(&c, nullptr, 4), CUBRIDGE_ERR_INVALID_ARGUMENT, "'flags'");
  cubridge_call old;
  old.struct_size = 16;
  ExpectError(cubridge_call_begin(&old, nullptr, 0), CUBRIDGE_ERR_INVALID_ARGUMENT, "struct_size");
  ASSERT_EQ(cubridge_call_begin(&c, nullptr, 0), CUBRIDGE_OK);
  for (int i = 0; i < CUBRIDGE_CALL_MAX_ARGS; ++i) {
    ASSERT_EQ(cubridge_call_add(&c, &va.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  }
  ExpectError(cubridge_call_add(&c, &va.v, CUBRIDGE_ACCESS_READ), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "at most 8 arguments");
  EXPECT_EQ(cubridge_call_end(&c, CUBRIDGE_OK), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_array_destroy(out), CUBRIDGE_OK);
}

// A front end gives the call's device as a hint (cubridge_assume_device) for
// the op it runs; when the call's work is a copy, nothing takes the hint, and
// it must end with the call: the thread's next op, on host memory, would else
// be launched on the GPU as if that memory were the device's.
TEST(RuntimeCall, DeviceHintEndsWithTheCall) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: on the CPU backend every pointer is host memory";
  const size_t n = size_t{1} << 22;
  void* d = nullptr;
  ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * 4, 0, nullptr, &d), CUBRIDGE_OK);
  std::vector<float> host(n, 1.0f);
  View vd("d", d, static_cast<int64_t>(n), CUBRIDGE_MEMORY_DEVICE);
  cubridge_call c;
  memset(&c, 0, sizeof(c));
  c.struct_size = sizeof(c);
  ASSERT_EQ(cubridge_call_begin(&c, nullptr, 0), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_call_add(&c, &vd.v, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  ASSERT_EQ(c.device, 0);
  ASSERT_EQ(cubridge_assume_device(c.device), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_memcpy(d, host.data(), n * 4, c.stream), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_call_end(&c, CUBRIDGE_OK), CUBRIDGE_OK) << cubridge_last_error();
  // Host memory: the op runs on the host and is done when it returns.
  ASSERT_EQ(cubridge_scale(CUBRIDGE_FLOAT32, 3.0, host.data(), n, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(host[0], 3.0f);
  EXPECT_EQ(host[n - 1], 3.0f);
  EXPECT_EQ(cubridge_device_synchronize(), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_free_async(CUBRIDGE_MEMORY_DEVICE, d, nullptr), CUBRIDGE_OK);
}

TEST(RuntimeDevice, EnterAndLeave) {
  int previous = -5;
  ASSERT_EQ(cubridge_device_enter(0, &previous), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(previous, 0);
  EXPECT_EQ(cubridge_device_leave(previous), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_device_enter(-1, &previous), CUBRIDGE_OK);
  int count = 0;
  ASSERT_EQ(cubridge_device_count(&count), CUBRIDGE_OK);
  ExpectError(cubridge_device_enter(count + 1, &previous), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "'device'");
  ExpectError(cubridge_device_enter(0, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT, "'previous'");
  if (count >= 2) {
    ASSERT_EQ(cubridge_device_enter(1, &previous), CUBRIDGE_OK);
    int now = -1;
    ASSERT_EQ(cubridge_get_device(&now), CUBRIDGE_OK);
    EXPECT_EQ(now, 1);
    ASSERT_EQ(cubridge_device_leave(previous), CUBRIDGE_OK);
    ASSERT_EQ(cubridge_get_device(&now), CUBRIDGE_OK);
    EXPECT_EQ(now, previous);
  }
}

// ---- the memory statistics of 0.1 and 0.2 callers ----------------------------------

TEST(RuntimeStats, OlderStructSizesGetTheirFields) {
  cubridge_memory_stats s;
  memset(&s, 0xab, sizeof(s));
  s.struct_size = offsetof(cubridge_memory_stats, scratch_bytes);
  ASSERT_EQ(cubridge_memory_stats_get(-1, &s), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(s.struct_size, offsetof(cubridge_memory_stats, scratch_bytes));
  uint64_t untouched;
  memset(&untouched, 0xab, sizeof(untouched));
  EXPECT_EQ(s.scratch_bytes, untouched) << "a 0.1 caller's struct has no scratch_bytes";
  s.struct_size = offsetof(cubridge_memory_stats, cached_bytes);
  ASSERT_EQ(cubridge_memory_stats_get(-1, &s), CUBRIDGE_OK);
  EXPECT_EQ(s.struct_size, offsetof(cubridge_memory_stats, cached_bytes));
}

// ---- orderings (GPU) --------------------------------------------------------------

// Another library's non-blocking stream, wrapped (not the library's own).
struct ForeignStream {
  cudaStream_t raw = nullptr;
  cubridge_stream s = nullptr;
  ForeignStream() {
    EXPECT_EQ(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cubridge_stream_from_handle(reinterpret_cast<uintptr_t>(raw), &s), CUBRIDGE_OK)
        << cubridge_last_error();
  }
  ~ForeignStream() {
    EXPECT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
    cudaStreamSynchronize(raw);
    cudaStreamDestroy(raw);
  }
};

constexpr size_t kBig = size_t(64) << 20;  // elements: a fill of 256 MiB takes long enough

// Work queued on `s` that keeps it busy: a few passes over a scratch array.
void Busy(cubridge_stream s, void* scratch, int passes) {
  for (int i = 0; i < passes; ++i) {
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, i, scratch, kBig, s), CUBRIDGE_OK)
        << cubridge_last_error();
  }
}

// A write on one foreign stream, a read on another: acquire makes the reader
// wait for the writer, through the array's event.
TEST(RuntimeOrder, ReadOnAnotherStreamWaitsForTheWrite) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: CPU ops finish before they return";
  ForeignStream f, g;
  cubridge_array scratch = nullptr, x = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, kBig * 4, -1, f.s, &scratch),
            CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, kBig * 4, -1, f.s, &x), CUBRIDGE_OK);
  void* xp = Info(x).data;
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 0.0, xp, kBig, f.s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_synchronize(f.s), CUBRIDGE_OK);
  Busy(f.s, Info(scratch).data, 8);
  ASSERT_EQ(cubridge_array_acquire(x, f.s, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, xp, kBig, f.s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_release(x, f.s, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_acquire(x, g.s, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK)
      << cubridge_last_error();
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, xp, kBig, &sum, g.s), CUBRIDGE_OK);
  EXPECT_EQ(sum, static_cast<double>(kBig)) << "the read overtook the write";
  ASSERT_EQ(cubridge_array_destroy(x), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_destroy(scratch), CUBRIDGE_OK);
}

// A write on another library's non-blocking stream waits for the reads of
// the array on the default stream (CUDA does not order the two streams).
TEST(RuntimeOrder, ForeignWriteWaitsForDefaultStreamReads) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: CPU ops finish before they return";
  ForeignStream f;
  cubridge_array scratch = nullptr, x = nullptr, copy = nullptr;
  for (cubridge_array* a : {&scratch, &x, &copy}) {
    ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, kBig * 4, -1, nullptr, a), CUBRIDGE_OK);
  }
  void *xp = Info(x).data, *cp = Info(copy).data;
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 3.0, xp, kBig, nullptr), CUBRIDGE_OK);
  Busy(nullptr, Info(scratch).data, 8);
  // The default stream reads x (into copy) behind the busy work ...
  ASSERT_EQ(cubridge_array_acquire(x, nullptr, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_convert(CUBRIDGE_FLOAT32, xp, CUBRIDGE_FLOAT32, cp, kBig, nullptr),
            CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_release(x, nullptr, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  // ... and the foreign stream's write must not overtake that read.
  ASSERT_EQ(cubridge_array_acquire(x, f.s, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK)
      << cubridge_last_error();
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 7.0, xp, kBig, f.s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_release(x, f.s, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, cp, kBig, &sum, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(sum, 3.0 * kBig) << "the write overtook a read on the default stream";
  for (cubridge_array a : {scratch, x, copy}) ASSERT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
}

// An array ended while another library's stream still reads it: its block
// goes to the next array of its size only after that read (the array cache
// hands it over behind the event), even on yet another stream.
TEST(RuntimeOrder, EndedArrayIsReusedOnlyAfterItsUses) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: CPU ops finish before they return";
  ForeignStream f, g;
  cubridge_array scratch = nullptr, x = nullptr, copy = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, kBig * 4, -1, f.s, &scratch),
            CUBRIDGE_OK);
  const size_t n = size_t(4) << 20;  // 16 MiB: the array cache keeps blocks this size
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, f.s, &x), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, f.s, &copy), CUBRIDGE_OK);
  void *xp = Info(x).data, *cp = Info(copy).data;
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 5.0, xp, n, f.s), CUBRIDGE_OK);
  Busy(f.s, Info(scratch).data, 8);
  ASSERT_EQ(cubridge_convert(CUBRIDGE_FLOAT32, xp, CUBRIDGE_FLOAT32, cp, n, f.s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_release(x, f.s, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK);
  const uint64_t cached = Stats(0).cached_bytes;
  ASSERT_EQ(cubridge_array_destroy(x), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).cached_bytes, cached + n * 4) << "kept in the array cache";
  cubridge_array y = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, g.s, &y), CUBRIDGE_OK);
  EXPECT_EQ(Info(y).data, xp) << "the kept block serves the next array of its size";
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 9.0, Info(y).data, n, g.s), CUBRIDGE_OK);
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, cp, n, &sum, f.s), CUBRIDGE_OK);
  EXPECT_EQ(sum, 5.0 * n) << "the block was written before the last read of its old array";
  ASSERT_EQ(cubridge_array_destroy(y), CUBRIDGE_OK);  // kept again, behind g's event

#if !defined(CUBRIDGE_NO_CUDA)  // (the CPU-only build's CUDA stand-in has no graphs)
  // A recording stream (another library's capture) is not handed a kept block:
  // waiting for its event would end the recording; the allocation is refused.
  ASSERT_EQ(cudaStreamBeginCapture(g.raw, cudaStreamCaptureModeGlobal), cudaSuccess);
  ExpectError(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, n * 4, -1, g.s, &y),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "recording a graph");
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(g.raw, &graph), cudaSuccess) << "the recording survived";
  if (graph) cudaGraphDestroy(graph);
#endif
  for (cubridge_array a : {scratch, copy}) ASSERT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_empty_cache(-1), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).cached_bytes, 0u);
}

// The host waits for the last write only (not a device-wide synchronise).
TEST(RuntimeOrder, SyncWaitsForTheLastWrite) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: CPU ops finish before they return";
  ForeignStream f;
  cubridge_array x = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_PINNED, 4 << 20, -1, f.s, &x), CUBRIDGE_OK);
  float* p = static_cast<float*>(Info(x).data);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 4.0, p, 1 << 20, f.s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_release(x, f.s, CUBRIDGE_ACCESS_WRITE), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_sync(x, CUBRIDGE_ACCESS_READ), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(p[0], 4.0f);
  EXPECT_EQ(p[(1 << 20) - 1], 4.0f);
  ASSERT_EQ(cubridge_array_destroy(x), CUBRIDGE_OK);
}

// While a stream of the library records, an ended array's memory waits for
// the recording's end (a free on the default stream would end it).
TEST(RuntimeOrder, FreesWaitForTheRecordingsEnd) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU: graphs are CUDA's";
  cubridge_stream s = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK);
  cubridge_array x = nullptr, y = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 4096, -1, nullptr, &x), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 4096, -1, nullptr, &y), CUBRIDGE_OK);
  const uint64_t in_use = Stats(0).in_use_bytes;
  ASSERT_EQ(cubridge_stream_begin_capture(s), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, Info(y).data, 1024, s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_destroy(x), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).in_use_bytes, in_use) << "held back, still in use";
  cubridge_graph g = nullptr;
  ASSERT_EQ(cubridge_stream_end_capture(s, &g), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(Stats(0).in_use_bytes, in_use - 4096) << "freed when the recording ended";
  ASSERT_EQ(cubridge_graph_launch(g, s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_graph_destroy(g), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_destroy(y), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);

  // A stream destroyed while it records ends the recording: the frees held
  // for it go ahead, and later ones are not held.
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 4096, -1, nullptr, &x), CUBRIDGE_OK);
  const uint64_t with_x = Stats(0).in_use_bytes;
  ASSERT_EQ(cubridge_stream_begin_capture(s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_destroy(x), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).in_use_bytes, with_x) << "held back";
  ASSERT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(Stats(0).in_use_bytes, with_x - 4096) << "freed when the recording was dropped";
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 4096, -1, nullptr, &x), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_array_destroy(x), CUBRIDGE_OK);
  EXPECT_EQ(Stats(0).in_use_bytes, with_x - 4096) << "no recording left: not held";
}

// ---- shutdown --------------------------------------------------------------------

// Every cache goes, and the library works on.
TEST(RuntimeShutdown, ReleasesEveryCacheAndTheLibraryWorksOn) {
  std::vector<float> host(size_t(6) << 20, 1.0f), out(host.size());
  ASSERT_EQ(
      cubridge_add(CUBRIDGE_FLOAT32, host.data(), host.data(), out.data(), host.size(), nullptr),
      CUBRIDGE_OK)
      << cubridge_last_error();  // 72 MiB of host arrays: the staged path on a GPU
  cubridge_array a = nullptr;
  ASSERT_EQ(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, 1 << 20, -1, nullptr, &a), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, Info(a).data, 1, nullptr), CUBRIDGE_OK);
  double sum = 0;
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, Info(a).data, 1, &sum, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(sum, 1.0);
  ASSERT_EQ(cubridge_array_destroy(a), CUBRIDGE_OK);  // into the block cache
  if (OnCuda()) {
    const cubridge_memory_stats before = Stats(0);
    EXPECT_GT(before.scratch_bytes, 0u) << "staging and reduction scratch are counted";
    EXPECT_GT(before.cached_bytes, 0u);
  }
  ASSERT_EQ(cubridge_shutdown(), CUBRIDGE_OK) << cubridge_last_error();
  const cubridge_memory_stats after = Stats(0);
  EXPECT_EQ(after.cached_bytes, 0u);
  EXPECT_EQ(after.scratch_bytes, 0u);
  if (!OnCuda() || after.in_use_bytes == 0) {
    EXPECT_EQ(after.reserved_bytes, after.in_use_bytes);
  }
  ASSERT_EQ(
      cubridge_add(CUBRIDGE_FLOAT32, host.data(), host.data(), out.data(), host.size(), nullptr),
      CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(out.back(), 2.0f);
  ASSERT_EQ(cubridge_sum(CUBRIDGE_FLOAT32, host.data(), host.size(), &sum, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(sum, static_cast<double>(host.size()));
}

}  // namespace
}  // namespace cubridge_test
