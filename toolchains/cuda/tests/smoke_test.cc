// The cuda_library rule's own test: an nvcc-compiled object links into a cc_test
// and its kernel runs when a GPU is present.
#include <gtest/gtest.h>

extern "C" int smoke_device_count(void);
extern "C" int smoke_run(void);

TEST(CudaLibrary, LinksAndRuns) {
  if (smoke_device_count() == 0) {
    GTEST_SKIP() << "no CUDA device: only the link was checked";
  }
  EXPECT_EQ(smoke_run(), 42);
}
