// rdc = True across two cuda_library targets, device-linked once, from C++.
#include <gtest/gtest.h>

#include <vector>

#include "toolchains/cuda/tests/rdc/apply.h"

TEST(Rdc, ExternDeviceAcrossLibraries) {
  std::vector<float> x = {1, 2, 3, 4};
  int rc = rdc_apply(x.data(), static_cast<int>(x.size()));
  if (rc == RDC_NO_DEVICE) {
    GTEST_SKIP() << "no CUDA device: the rdc objects and the device link linked";
  }
  ASSERT_EQ(rc, RDC_OK);
  EXPECT_EQ(x, (std::vector<float>{3, 5, 7, 9}));
}
