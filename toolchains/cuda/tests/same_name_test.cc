// Two .cu files with the same basename in one cuda_library: both objects exist
// and link (they used to overwrite each other's outputs).
#include <gtest/gtest.h>

extern "C" int same_name_one(void);
extern "C" int same_name_two(void);

TEST(CudaLibrary, SameBasenameSources) {
  EXPECT_EQ(same_name_one(), 1);
  EXPECT_EQ(same_name_two(), 2);
}
