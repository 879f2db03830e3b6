// cubridge/comm.h without a GPU (CI) and, with one (--config=gpu), on every
// visible device: argument checks, "NCCL not available" answers, the loader,
// and the library still working after each refusal.
#include "cubridge/comm.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cubridge/cubridge.h"
#include "test_util.h"

namespace {

using cubridge_test::Backend;
using cubridge_test::ExpectError;
using cubridge_test::ExpectNameTable;

std::string g_libnccl;  // runfiles path of the pinned wheel's libnccl.so.2 (argv[1])

bool HasNccl() {
  int v = 0;
  return cubridge_nccl_version(&v) == CUBRIDGE_OK;
}

std::string LastError() { return cubridge_last_error(); }

// The library still adds after a refused call.
void ExpectHealthy() {
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, out[3] = {};
  ASSERT_EQ(cubridge_add(CUBRIDGE_FLOAT32, a, b, out, 3, nullptr), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(out[2], 33.0f);
}

TEST(Comm, ReduceOpNamesMatchNccl) {
  ExpectNameTable(cubridge_reduce_op_name,
                  {{CUBRIDGE_REDUCE_SUM, "sum"},
                   {CUBRIDGE_REDUCE_PROD, "prod"},
                   {CUBRIDGE_REDUCE_MAX, "max"},
                   {CUBRIDGE_REDUCE_MIN, "min"}},
                  4);
  EXPECT_EQ(sizeof(cubridge_comm_unique_id), 128u);
}

TEST(Comm, VersionNullArgument) {
  ExpectError(cubridge_nccl_version(nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT, "'version'");
}

#if !defined(CUBRIDGE_NO_CUDA)
// Runs before the loader has seen any path: the default search finds nothing
// (the test environment has no NCCL on LD_LIBRARY_PATH), and says how to fix it.
TEST(Comm, AAMissingLibraryIsAClearError) {
  if (getenv("CUBRIDGE_NCCL_LIBRARY") != nullptr || HasNccl()) {
    GTEST_SKIP() << "NCCL is installed on this machine's loader path";
  }
  int v = 123;
  EXPECT_EQ(cubridge_nccl_version(&v), CUBRIDGE_ERR_DRIVER);
  EXPECT_EQ(v, 0);
  EXPECT_NE(LastError().find("NCCL not available"), std::string::npos) << LastError();
  // The NCCL wheel of the CUDA major the library was built with.
  const std::string cu = "cu" + std::to_string(cubridge_cuda_version() / 1000);
  EXPECT_NE(
      LastError().find("install nvidia-nccl-" + cu + " (pip install cubridge-" + cu + "[nccl])"),
      std::string::npos)
      << LastError();
  EXPECT_NE(LastError().find("libnccl.so.2"), std::string::npos) << LastError();
  ExpectHealthy();
}

TEST(Comm, ABLoadsTheWheelLibraryFromAnExplicitPath) {
  ASSERT_FALSE(g_libnccl.empty());
  ASSERT_EQ(cubridge_nccl_set_library_path(g_libnccl.c_str()), CUBRIDGE_OK);
  int v = 0;
  ASSERT_EQ(cubridge_nccl_version(&v), CUBRIDGE_OK) << LastError();
  EXPECT_EQ(v / 10000, 2);
  EXPECT_GE(v, 21900);
  // Loaded: the same path again is fine, another one is refused by name.
  EXPECT_EQ(cubridge_nccl_set_library_path(g_libnccl.c_str()), CUBRIDGE_OK);
  ExpectError(cubridge_nccl_set_library_path("/elsewhere/libnccl.so.2"),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "already loaded");
}
#else
TEST(Comm, NoCudaBuildHasNoNccl) {
  int v = 1;
  EXPECT_EQ(cubridge_nccl_version(&v), CUBRIDGE_ERR_DRIVER);
  EXPECT_EQ(v, 0);
  EXPECT_NE(LastError().find("NCCL not available"), std::string::npos) << LastError();
}
#endif

TEST(Comm, CpuBackendRefusesEveryCall) {
  if (Backend() != CUBRIDGE_BACKEND_CPU) GTEST_SKIP() << "CUDA backend";
  cubridge_comm comms[2] = {};
  cubridge_comm_unique_id id{};
  float x[4] = {};
  auto expect_refused = [](cubridge_status st, const char* fn) {
    EXPECT_EQ(st, CUBRIDGE_ERR_NO_DEVICE) << fn;
    EXPECT_NE(LastError().find("NCCL not available on the CPU backend"), std::string::npos)
        << LastError();
    EXPECT_NE(LastError().find(fn), std::string::npos) << LastError();
  };
  expect_refused(cubridge_comm_init_all(1, nullptr, comms), "cubridge_comm_init_all");
  expect_refused(cubridge_comm_init_rank(&id, 1, 0, 0, comms), "cubridge_comm_init_rank");
  expect_refused(cubridge_comm_unique_id_create(&id), "cubridge_comm_unique_id_create");
  expect_refused(cubridge_comm_all_reduce(comms[0], CUBRIDGE_FLOAT32, x, x, 4, 0, nullptr),
                 "cubridge_comm_all_reduce");
  expect_refused(cubridge_comm_broadcast(comms[0], CUBRIDGE_FLOAT32, x, x, 4, 0, nullptr),
                 "cubridge_comm_broadcast");
  expect_refused(cubridge_comm_reduce_scatter(comms[0], CUBRIDGE_FLOAT32, x, x, 4, 0, nullptr),
                 "cubridge_comm_reduce_scatter");
  expect_refused(cubridge_comm_all_gather(comms[0], CUBRIDGE_FLOAT32, x, x, 4, nullptr),
                 "cubridge_comm_all_gather");
  // A check speaks for the collective it checks.
  expect_refused(
      cubridge_comm_check(CUBRIDGE_ALL_REDUCE, comms[0], CUBRIDGE_FLOAT32, x, x, 4, 0, nullptr),
      "cubridge_comm_all_reduce");
  expect_refused(cubridge_comm_group_start(), "cubridge_comm_group_start");
  expect_refused(cubridge_comm_group_end(), "cubridge_comm_group_end");
  EXPECT_EQ(comms[0], nullptr);
  EXPECT_EQ(cubridge_comm_destroy(nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_comm_abort(nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_comm_info(nullptr, nullptr, nullptr, nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT);
  ExpectError(cubridge_comm_async_error(nullptr), CUBRIDGE_ERR_INVALID_ARGUMENT,
              "cubridge_comm_async_error: argument 'comm' is NULL");
  ExpectHealthy();
}

// ---- with a GPU and NCCL (--config=gpu on the GPU host) ----------------------

class CommGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Backend() != CUBRIDGE_BACKEND_CUDA) GTEST_SKIP() << "needs the CUDA backend";
    if (!HasNccl()) GTEST_SKIP() << "NCCL not loadable: " << LastError();
    ASSERT_EQ(cubridge_device_count(&ndev_), CUBRIDGE_OK);
  }
  int ndev_ = 0;
};

TEST_F(CommGpu, ArgumentChecks) {
  cubridge_comm comm = nullptr;
  ASSERT_EQ(cubridge_comm_init_all(1, nullptr, &comm), CUBRIDGE_OK) << LastError();
  int rank = -1, nranks = -1, device = -1;
  ASSERT_EQ(cubridge_comm_info(comm, &rank, &nranks, &device), CUBRIDGE_OK);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(nranks, 1);
  EXPECT_EQ(device, 0);
  void* d = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 64 * sizeof(float), &d), CUBRIDGE_OK);
  float host[64] = {};
  ExpectError(cubridge_comm_all_reduce(comm, CUBRIDGE_FLOAT32, host, d, 64, 0, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "pageable host memory");
  EXPECT_EQ(cubridge_comm_all_reduce(comm, 99, d, d, 64, 0, nullptr),
            CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
  EXPECT_EQ(cubridge_comm_all_reduce(comm, CUBRIDGE_FLOAT32, d, d, 64, 7, nullptr),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_comm_broadcast(comm, CUBRIDGE_FLOAT32, d, d, 64, 1, nullptr),
            CUBRIDGE_ERR_INVALID_ARGUMENT);
  ExpectError(cubridge_comm_all_reduce(comm, CUBRIDGE_FLOAT32, d, static_cast<float*>(d) + 1, 32, 0,
                                       nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "overlap");
  EXPECT_EQ(cubridge_comm_init_all(ndev_ + 1, nullptr, &comm), CUBRIDGE_ERR_INVALID_ARGUMENT);
  // One rank: all_reduce is the identity, in place.
  std::vector<float> v(64), back(64);
  for (int i = 0; i < 64; ++i) v[i] = static_cast<float>(i);
  ASSERT_EQ(cubridge_memcpy(d, v.data(), 64 * sizeof(float), nullptr), CUBRIDGE_OK);
  ASSERT_EQ(
      cubridge_comm_all_reduce(comm, CUBRIDGE_FLOAT32, d, d, 64, CUBRIDGE_REDUCE_SUM, nullptr),
      CUBRIDGE_OK)
      << LastError();
  ASSERT_EQ(cubridge_memcpy(back.data(), d, 64 * sizeof(float), nullptr), CUBRIDGE_OK);
  EXPECT_EQ(back, v);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, d), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_comm_destroy(comm), CUBRIDGE_OK) << LastError();
  ExpectHealthy();
}

// cubridge_comm_check refuses what the collective would, in its words, and runs
// nothing (what a group checks on every rank before it queues any).
TEST_F(CommGpu, CheckRefusesWhatTheCollectiveWouldAndRunsNothing) {
  cubridge_comm comm = nullptr;
  ASSERT_EQ(cubridge_comm_init_all(1, nullptr, &comm), CUBRIDGE_OK) << LastError();
  void* d = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 64 * sizeof(float), &d), CUBRIDGE_OK);
  float* f = static_cast<float*>(d);
  // Ones, then zeros: a collective from f to f + 32 would write ones over the zeros.
  std::vector<float> ones(64, 1.0f), back(64);
  std::fill(ones.begin() + 32, ones.end(), 0.0f);
  ASSERT_EQ(cubridge_memcpy(d, ones.data(), 64 * sizeof(float), nullptr), CUBRIDGE_OK);
  float host[64] = {};
  ExpectError(
      cubridge_comm_check(CUBRIDGE_ALL_REDUCE, comm, CUBRIDGE_FLOAT32, host, d, 64, 0, nullptr),
      CUBRIDGE_ERR_INVALID_ARGUMENT, "cubridge_comm_all_reduce: argument 'send' is pageable");
  ExpectError(
      cubridge_comm_check(CUBRIDGE_ALL_REDUCE, comm, CUBRIDGE_FLOAT32, d, d, 64, 7, nullptr),
      CUBRIDGE_ERR_INVALID_ARGUMENT, "op");
  ExpectError(cubridge_comm_check(CUBRIDGE_BROADCAST, comm, CUBRIDGE_FLOAT32, d, d, 64, 1, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "root");
  // reduce_scatter: recv (the smaller) inside send, not at this rank's slice.
  ExpectError(cubridge_comm_check(CUBRIDGE_REDUCE_SCATTER, comm, CUBRIDGE_FLOAT32, f, f + 1, 32, 0,
                                  nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT,
              "arguments 'recv' and 'send' overlap but not in place (recv must be disjoint");
  ExpectError(cubridge_comm_check(9, comm, CUBRIDGE_FLOAT32, d, d, 64, 0, nullptr),
              CUBRIDGE_ERR_INVALID_ARGUMENT, "argument 'collective' = 9");
  for (int coll :
       {CUBRIDGE_ALL_REDUCE, CUBRIDGE_BROADCAST, CUBRIDGE_REDUCE_SCATTER, CUBRIDGE_ALL_GATHER}) {
    EXPECT_EQ(cubridge_comm_check(coll, comm, CUBRIDGE_FLOAT32, f, f + 32, 32, 0, nullptr),
              CUBRIDGE_OK)
        << coll << ": " << LastError();
  }
  ASSERT_EQ(cubridge_memcpy(back.data(), d, 64 * sizeof(float), nullptr), CUBRIDGE_OK);
  EXPECT_EQ(back, ones) << "a check wrote nothing";
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, d), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_comm_destroy(comm), CUBRIDGE_OK) << LastError();
  ExpectHealthy();
}

// A healthy comm has no asynchronous error, and aborting one frees it at once.
TEST_F(CommGpu, AsyncErrorOfAHealthyCommAndAbort) {
  cubridge_comm comm = nullptr;
  ASSERT_EQ(cubridge_comm_init_all(1, nullptr, &comm), CUBRIDGE_OK) << LastError();
  void* d = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, 64 * sizeof(float), &d), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2.0, d, 64, nullptr), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_comm_all_reduce(comm, CUBRIDGE_FLOAT32, d, d, 64, 0, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_comm_async_error(comm), CUBRIDGE_OK) << LastError();
  ASSERT_EQ(cubridge_stream_synchronize(nullptr), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_comm_async_error(comm), CUBRIDGE_OK) << LastError();
  EXPECT_EQ(cubridge_comm_abort(comm), CUBRIDGE_OK) << LastError();
  float mx = 0;
  ASSERT_EQ(cubridge_max(CUBRIDGE_FLOAT32, d, 64, &mx, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(mx, 2.0f);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, d), CUBRIDGE_OK);
  ExpectHealthy();
}

// Two GPUs: rank 0 queues an all_reduce that rank 1 never joins, so its
// kernel waits for the peer forever. The stream says not done for as long as
// anyone cares to look; cubridge_comm_abort ends the kernel, the stream
// drains and the device works on.
TEST_F(CommGpu, AbortEndsACollectiveWhosePeerNeverCame) {
  if (ndev_ < 2) GTEST_SKIP() << "needs two GPUs, this host has " << ndev_;
  int devices[2] = {0, 1};
  cubridge_comm comms[2] = {};
  ASSERT_EQ(cubridge_comm_init_all(2, devices, comms), CUBRIDGE_OK) << LastError();
  const size_t n = 1 << 20;
  void* d[2] = {};
  cubridge_stream s[2] = {};
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(cubridge_stream_create_on(r, &s[r]), CUBRIDGE_OK) << LastError();
    ASSERT_EQ(cubridge_malloc_async(CUBRIDGE_MEMORY_DEVICE, n * sizeof(float), r, s[r], &d[r]),
              CUBRIDGE_OK)
        << LastError();
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1.0, d[r], n, s[r]), CUBRIDGE_OK);
  }
  // One collective that both join, so the ranks are connected, then one
  // that only rank 0 joins.
  ASSERT_EQ(cubridge_comm_group_start(), CUBRIDGE_OK);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(cubridge_comm_all_reduce(comms[r], CUBRIDGE_FLOAT32, d[r], d[r], n, 0, s[r]),
              CUBRIDGE_OK)
        << LastError();
  }
  ASSERT_EQ(cubridge_comm_group_end(), CUBRIDGE_OK) << LastError();
  for (int r = 0; r < 2; ++r) ASSERT_EQ(cubridge_stream_synchronize(s[r]), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_comm_all_reduce(comms[0], CUBRIDGE_FLOAT32, d[0], d[0], n, 0, s[0]),
            CUBRIDGE_OK)
      << LastError();
  int done = -1;
  for (int i = 0; i < 100; ++i) {  // one second
    ASSERT_EQ(cubridge_stream_query(s[0], &done), CUBRIDGE_OK) << LastError();
    ASSERT_EQ(done, 0) << "the collective finished without its peer";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(cubridge_comm_async_error(comms[0]), CUBRIDGE_OK) << LastError();
  ASSERT_EQ(cubridge_comm_abort(comms[0]), CUBRIDGE_OK) << LastError();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (cubridge_stream_query(s[0], &done) == CUBRIDGE_OK && done == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(done, 1) << "the stream did not drain within 30 s of the abort: " << LastError();
  ASSERT_EQ(cubridge_comm_abort(comms[1]), CUBRIDGE_OK) << LastError();
  // Both devices work on (each op runs on its arrays' device).
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 3.0, d[r], n, s[r]), CUBRIDGE_OK) << LastError();
    float mx = 0;
    ASSERT_EQ(cubridge_max(CUBRIDGE_FLOAT32, d[r], n, &mx, s[r]), CUBRIDGE_OK) << LastError();
    EXPECT_EQ(mx, 3.0f) << "device " << r;
    EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, d[r]), CUBRIDGE_OK);
    EXPECT_EQ(cubridge_stream_destroy(s[r]), CUBRIDGE_OK);
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) g_libnccl = argv[1];
  return RUN_ALL_TESTS();
}
