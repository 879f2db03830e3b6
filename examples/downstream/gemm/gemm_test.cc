// The gemm example's C ABI from C++: bad arguments are refused on any machine;
// with a GPU, the GEMM, the cuRAND fill and the rdc kernel compute for real.
#include "gemm.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  float x = 0;
  Check(gemm_matmul_device(7, 1, 1, 1, &x, &x, &x) == GEMM_BAD_ARGUMENT, "unknown dtype refused");
  Check(gemm_matmul_device(GEMM_F32, -1, 1, 1, &x, &x, &x) == GEMM_BAD_ARGUMENT,
        "negative size refused");
  Check(gemm_matmul_host_f32(2, 2, 2, nullptr, &x, &x) == GEMM_BAD_ARGUMENT,
        "null pointer refused");
  Check(gemm_uniform_host(nullptr, 4, 1) == GEMM_BAD_ARGUMENT, "null output refused");
  if (gemm_device_count() == 0) {
    Check(gemm_matmul_host_f32(1, 1, 1, &x, &x, &x) == GEMM_NO_DEVICE, "no device reported");
    std::printf("SKIPPED the GPU checks: no CUDA device (cuBLAS and cuRAND linked and loaded)\n");
    return failures == 0 ? 0 : 1;
  }
  // Row-major [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] = [[19, 22], [43, 50]].
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c(4);
  Check(gemm_matmul_host_f32(2, 2, 2, a.data(), b.data(), c.data()) == GEMM_OK, "matmul ran");
  Check(c == std::vector<float>({19, 22, 43, 50}), "matmul result");
  std::vector<float> u(1 << 16);
  Check(gemm_uniform_host(u.data(), u.size(), 42) == GEMM_OK, "uniform ran");
  double sum = 0;
  for (float v : u) {
    Check(v > 0.0f && v <= 1.0f, "uniform in (0, 1]");
    sum += v;
  }
  Check(std::fabs(sum / u.size() - 0.5) < 0.01, "uniform mean 0.5");
  std::vector<float> y = {1, 2, 3};
  Check(gemm_affine_host(y.data(), y.size(), 2.0f, 1.0f) == GEMM_OK, "affine ran");
  Check(y == std::vector<float>({3, 5, 7}), "affine result (rdc kernel)");
  std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}
