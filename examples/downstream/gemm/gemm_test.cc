// The gemm example from C++ through the generated C callers: the shared matmul
// vectors and the rdc kernel on any backend (cuBLAS on the GPU, the host path
// on the CPU backend); cuRAND on the GPU only.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "affine.bind.h"
#include "cubridge/bind.h"
#include "matmul.bind.h"
#include "testdata/vectors.h"
#include "uniform.bind.h"

namespace {

int failures = 0;

void Check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

cubridge_view View(void* data, int dtype, int ndim, int64_t* shape) {
  cubridge_view v;
  std::memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  v.data = data;
  v.dtype = dtype;
  v.ndim = ndim;
  v.shape = shape;
  v.memory = CUBRIDGE_MEMORY_HOST;
  v.device = -1;
  return v;
}

// IEEE half bits of a float that float16 holds exactly (the vectors' values).
uint16_t Half(double x) {
  if (x == 0) return 0;
  int e = 0;
  const double frac = std::frexp(std::fabs(x), &e);  // x = frac * 2^e, frac in [0.5, 1)
  const uint16_t sign = x < 0 ? 0x8000 : 0;
  return static_cast<uint16_t>(sign | ((e + 14) << 10) |
                               (static_cast<int>(std::ldexp(frac, 11)) & 0x3ff));
}

template <class T>
void Matmul(const vectors::Case& c, int dtype, T (*conv)(double)) {
  std::vector<T> a, b, want, out;
  for (double v : c.values.at("a")) a.push_back(conv(v));
  for (double v : c.values.at("b")) b.push_back(conv(v));
  for (double v : c.values.at("want")) want.push_back(conv(v));
  out.assign(want.size(), conv(7));
  int64_t m = static_cast<int64_t>(c.scalar("m")), k = static_cast<int64_t>(c.scalar("k")),
          n = static_cast<int64_t>(c.scalar("n"));
  int64_t sa[2] = {m, k}, sb[2] = {k, n}, sc[2] = {m, n};
  cubridge_view av = View(a.data(), dtype, 2, sa), bv = View(b.data(), dtype, 2, sb),
                cv = View(out.data(), dtype, 2, sc);
  const cubridge_status st = matmul_call(&av, &bv, &cv, nullptr);
  if (st != CUBRIDGE_OK) std::fprintf(stderr, "%s\n", cubridge_last_error());
  Check(st == CUBRIDGE_OK && out == want, c.name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<vectors::Case> cases = vectors::Load(argc > 1 ? argv[1] : "matmul.txt");
  Check(!cases.empty(), "vectors read");
  for (const vectors::Case& c : cases) {
    if (c.dtype == "float16") {
      Matmul<uint16_t>(c, CUBRIDGE_FLOAT16, Half);
    } else {
      Matmul<float>(c, CUBRIDGE_FLOAT32, [](double v) { return static_cast<float>(v); });
    }
  }
  std::vector<float> x = {1, 2, 3};
  int64_t nx = 3;
  cubridge_view xv = View(x.data(), CUBRIDGE_FLOAT32, 1, &nx);
  Check(affine_call(&xv, 2.0, 1.0, nullptr) == CUBRIDGE_OK && x == std::vector<float>({3, 5, 7}),
        "affine (rdc)");
  int backend = 0;
  cubridge_get_backend(&backend);
  std::vector<float> u(1 << 16);
  int64_t nu = static_cast<int64_t>(u.size());
  cubridge_view uv = View(u.data(), CUBRIDGE_FLOAT32, 1, &nu);
  const cubridge_status st = uniform_call(nu, 42, &uv, nullptr);
  if (backend != CUBRIDGE_BACKEND_CUDA) {
    Check(st == CUBRIDGE_ERR_NO_DEVICE, "uniform refused on the CPU backend (cuRAND needs a GPU)");
  } else {
    double sum = 0;
    bool in_range = st == CUBRIDGE_OK;
    for (float v : u) {
      in_range = in_range && v > 0.0f && v <= 1.0f;
      sum += v;
    }
    Check(in_range && std::fabs(sum / u.size() - 0.5) < 0.01, "uniform in (0, 1], mean 0.5");
  }
  std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}
