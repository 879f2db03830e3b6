// The shared test vectors (testdata/quantize.txt) from C++, through the C
// caller kernel_binding generates (quantize_call), on this machine's backend.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cubridge/bind.h"
#include "quantize.bind.h"
#include "testdata/vectors.h"

namespace {

cubridge_view View(void* data, int dtype, int64_t* shape) {
  cubridge_view v;
  std::memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  v.data = data;
  v.dtype = dtype;
  v.ndim = 2;
  v.shape = shape;
  v.memory = CUBRIDGE_MEMORY_HOST;
  v.device = -1;
  return v;
}

template <class T>
bool Run(const vectors::Case& c, int dtype) {
  std::vector<T> x(c.values.at("x").begin(), c.values.at("x").end());
  std::vector<int32_t> want(c.values.at("want").begin(), c.values.at("want").end());
  std::vector<int32_t> q(x.size(), 7);
  int64_t shape[2] = {static_cast<int64_t>(c.scalar("m")), static_cast<int64_t>(c.scalar("n"))};
  cubridge_view xv = View(x.data(), dtype, shape), qv = View(q.data(), CUBRIDGE_INT32, shape);
  if (quantize_call(&xv, c.scalar("scale"), &qv, nullptr) != CUBRIDGE_OK) {
    std::fprintf(stderr, "FAIL %s: %s\n", c.name.c_str(), cubridge_last_error());
    return false;
  }
  if (q != want) {
    std::fprintf(stderr, "FAIL %s: wrong values\n", c.name.c_str());
    return false;
  }
  std::printf("ok %s (%s)\n", c.name.c_str(), c.dtype.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<vectors::Case> cases = vectors::Load(argc > 1 ? argv[1] : "quantize.txt");
  bool ok = !cases.empty();
  for (const vectors::Case& c : cases) {
    ok &= c.dtype == "float32" ? Run<float>(c, CUBRIDGE_FLOAT32) : Run<double>(c, CUBRIDGE_FLOAT64);
  }
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
