// rules_cuda's targets with cubridge's toolkit: they compile (<cmath>,
// cublas_v2.h), link (rdc, cuBLAS) and run; with a GPU both norms agree with
// the host's, without one the call says so.
#include "norm.h"

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.001f * static_cast<float>(i % 100);
  const float host = plain_norm_host(x.data(), x.size());
  const int cublas = plain_cublas_major();
  std::printf("host norm %.6f, cuBLAS major %d\n", host, cublas);
  if (cublas < 12) return 1;
  float kernel = 0, blas = 0;
  const int rc = plain_norm_gpu(x.data(), x.size(), &kernel, &blas);
  if (rc == -1) {
    std::printf("no GPU: the GPU norms were not computed\n");
    return 0;
  }
  std::printf("kernel norm %.6f, cuBLAS norm %.6f (rc %d)\n", kernel, blas, rc);
  if (rc != 0) return 1;
  return std::fabs(kernel - host) < 1e-3f * host && std::fabs(blas - host) < 1e-3f * host ? 0 : 1;
}
