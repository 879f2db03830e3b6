// The NCCL target's own test: nccl.h compiles against the toolkit's headers and
// the pinned wheel's libnccl.so.2 loads (dlopen, as cubridge does) and reports
// the version of the header. No GPU needed: ncclGetVersion touches no device.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <string>

static std::string g_libnccl;  // runfiles path of libnccl.so.2 (argv[1])

TEST(NcclTarget, HeaderIsNccl2WithStableUniqueId) {
  EXPECT_EQ(NCCL_MAJOR, 2);
  EXPECT_GE(NCCL_VERSION_CODE, NCCL_VERSION(2, 28, 0));
  // cubridge_comm_unique_id copies ncclUniqueId byte for byte.
  EXPECT_EQ(sizeof(ncclUniqueId), 128u);
}

TEST(NcclTarget, WheelLibraryLoadsAndMatchesHeader) {
  ASSERT_FALSE(g_libnccl.empty()) << "pass the path of libnccl.so.2";
  void* lib = dlopen(g_libnccl.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using GetVersion = ncclResult_t (*)(int*);
  auto get_version = reinterpret_cast<GetVersion>(dlsym(lib, "ncclGetVersion"));
  ASSERT_NE(get_version, nullptr) << dlerror();
  int version = 0;
  ASSERT_EQ(get_version(&version), ncclSuccess);
  EXPECT_EQ(version, NCCL_VERSION_CODE);
  for (const char* fn :
       {"ncclCommInitAll", "ncclCommInitRank", "ncclAllReduce", "ncclBroadcast",
        "ncclReduceScatter", "ncclAllGather", "ncclGroupStart", "ncclGroupEnd", "ncclCommDestroy",
        "ncclGetUniqueId", "ncclGetErrorString", "ncclGetLastError", "ncclCommGetAsyncError"}) {
    EXPECT_NE(dlsym(lib, fn), nullptr) << fn;
  }
  dlclose(lib);
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) g_libnccl = argv[1];
  return RUN_ALL_TESTS();
}
