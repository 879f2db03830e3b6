// The shared test vectors (testdata/saxpy.txt) from C++, through the C caller
// kernel_binding generates (saxpy_call), on this machine's backend.
#include <cstdio>
#include <cstring>
#include <vector>

#include "cubridge/bind.h"
#include "saxpy.bind.h"
#include "testdata/vectors.h"

namespace {

cubridge_view View(void* data, int dtype, int64_t* n) {
  cubridge_view v;
  std::memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  v.data = data;
  v.dtype = dtype;
  v.ndim = 1;
  v.shape = n;
  v.memory = CUBRIDGE_MEMORY_HOST;
  v.device = -1;
  return v;
}

template <class T>
bool Run(const vectors::Case& c, int dtype) {
  std::vector<T> x(c.values.at("x").begin(), c.values.at("x").end());
  std::vector<T> y(c.values.at("y").begin(), c.values.at("y").end());
  std::vector<T> want(c.values.at("want").begin(), c.values.at("want").end());
  int64_t n = static_cast<int64_t>(x.size());
  cubridge_view xv = View(x.data(), dtype, &n), yv = View(y.data(), dtype, &n);
  cubridge_status st = saxpy_call(&xv, &yv, c.scalar("a"), nullptr);
  if (st != CUBRIDGE_OK) {
    std::fprintf(stderr, "FAIL %s: %s\n", c.name.c_str(), cubridge_last_error());
    return false;
  }
  if (y != want) {
    std::fprintf(stderr, "FAIL %s: wrong values\n", c.name.c_str());
    return false;
  }
  std::printf("ok %s (%s)\n", c.name.c_str(), c.dtype.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<vectors::Case> cases = vectors::Load(argc > 1 ? argv[1] : "saxpy.txt");
  bool ok = !cases.empty();
  for (const vectors::Case& c : cases) {
    ok &= c.dtype == "float32" ? Run<float>(c, CUBRIDGE_FLOAT32) : Run<double>(c, CUBRIDGE_FLOAT64);
  }
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
