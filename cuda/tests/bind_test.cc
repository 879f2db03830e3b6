// The binding ABI (cubridge/bind.h): declared kernels, written here as cubind
// would generate them, called through cubridge_kernel_call. The checks run on
// both backends; the device and staging paths need a GPU.
#include "cubridge/bind.h"

#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace cubridge_test {
namespace {

bool Has(const char* text, const std::string& part) {
  return std::string(text).find(part) != std::string::npos;
}

constexpr unsigned kFloats = (1u << CUBRIDGE_FLOAT32) | (1u << CUBRIDGE_FLOAT64);

// What the last launch saw.
struct Seen {
  int calls = 0;
  int device = -2;
  int memory[4] = {-1, -1, -1, -1};
  int64_t n = -1;
};
thread_local Seen seen;

int MemoryOf(const void* p) {
  int kind = -1;
  EXPECT_EQ(cubridge_pointer_kind(p, &kind, nullptr), CUBRIDGE_OK) << cubridge_last_error();
  return kind;
}

// y = a*x + y, declared as: in x float32|float64 [n]; inout y like x [n]; scalar a float.
// A negative a makes the kernel fail, to test its message.
cubridge_status SaxpyEntry(const cubridge_launch* l, const cubridge_view* x, const cubridge_view* y,
                           double a, int64_t n) {
  seen.calls++;
  seen.device = l->device;
  seen.n = n;
  seen.memory[0] = MemoryOf(x->data);
  seen.memory[1] = MemoryOf(y->data);
  if (a < 0) return cubridge_launch_fail(l, CUBRIDGE_ERR_INVALID_ARGUMENT, "a = %g < 0", a);
  if (l->device < 0) {
    for (int64_t i = 0; i < n; ++i) {
      if (x->dtype == CUBRIDGE_FLOAT32) {
        static_cast<float*>(y->data)[i] +=
            static_cast<float>(a) * static_cast<const float*>(x->data)[i];
      } else {
        static_cast<double*>(y->data)[i] += a * static_cast<const double*>(x->data)[i];
      }
    }
    return CUBRIDGE_OK;
  }
  // On the GPU: cubridge's own axpy on the launch's stream.
  cubridge_stream s = nullptr;
  cubridge_status st = cubridge_stream_from_handle(l->stream, &s);
  if (st == CUBRIDGE_OK)
    st = cubridge_axpy(x->dtype, a, x->data, y->data, static_cast<size_t>(n), s);
  cubridge_stream_destroy(s);
  return st;
}

cubridge_status SaxpyTrampoline(const cubridge_launch* l) {
  return SaxpyEntry(l, l->arrays[0], l->arrays[1], l->scalars[2].f, l->dims[0]);
}

const char* const kSaxpyDims[] = {"n"};
const cubridge_kernel_param kSaxpyParams[] = {
    {"x", CUBRIDGE_PARAM_IN, kFloats, -1, 1, {-1}, -1},
    {"y", CUBRIDGE_PARAM_INOUT, 0, 0, 1, {-1}, -1},
    {"a", CUBRIDGE_PARAM_FLOAT, 0, -1, 0, {}, -1},
};
cubridge_kernel MakeSaxpy(int host = CUBRIDGE_HOST_STAGE) {
  return {CUBRIDGE_BIND_VERSION, "saxpy", "y = a*x + y", "bind_test", host,
          CUBRIDGE_RESULT_ARRAY, 3,       kSaxpyParams,  1,           kSaxpyDims,
          SaxpyTrampoline};
}
const cubridge_kernel kSaxpy = MakeSaxpy();

// A view of `data` with the given shape and dtype, named by the kernel.
struct View {
  int64_t shape[4];
  cubridge_view v;
  View(void* data, int dtype, std::vector<int64_t> dims, int memory = CUBRIDGE_MEMORY_HOST) {
    memset(&v, 0, sizeof(v));
    v.struct_size = sizeof(v);
    v.data = data;
    v.dtype = dtype;
    v.ndim = static_cast<int>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) shape[i] = dims[i];
    v.shape = shape;
    v.memory = memory;
    v.device = memory == CUBRIDGE_MEMORY_HOST ? -1 : 0;
  }
};

cubridge_status CallSaxpy(const cubridge_kernel& k, cubridge_view* x, cubridge_view* y, double a,
                          cubridge_stream s = nullptr) {
  cubridge_view* arrays[3] = {x, y, nullptr};
  cubridge_scalar scalars[3];
  scalars[2].f = a;
  return cubridge_kernel_call(&k, arrays, scalars, s, 0);
}

TEST(Bind, SaxpyOnHostArrays) {
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  View xv(x.data(), CUBRIDGE_FLOAT32, {4}), yv(y.data(), CUBRIDGE_FLOAT32, {4});
  seen = Seen();
  ASSERT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 2.0), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(y, (std::vector<float>{12, 24, 36, 48}));
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.n, 4);
  if (OnCuda()) {
    // Staged: the kernel saw device memory on device 0.
    EXPECT_EQ(seen.device, 0);
    EXPECT_EQ(seen.memory[0], CUBRIDGE_MEMORY_DEVICE);
    EXPECT_EQ(seen.memory[1], CUBRIDGE_MEMORY_DEVICE);
  } else {
    EXPECT_EQ(seen.device, -1);
  }
  std::vector<double> xd = {0.5, 0.25}, yd = {1, 1};
  View xdv(xd.data(), CUBRIDGE_FLOAT64, {2}), ydv(yd.data(), CUBRIDGE_FLOAT64, {2});
  ASSERT_EQ(CallSaxpy(kSaxpy, &xdv.v, &ydv.v, 4.0), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(yd, (std::vector<double>{3, 2}));
}

TEST(Bind, HostCpuPolicyRunsHostArraysOnTheHost) {
  const cubridge_kernel k = MakeSaxpy(CUBRIDGE_HOST_CPU);
  std::vector<float> x = {1, 2}, y = {1, 1};
  View xv(x.data(), CUBRIDGE_FLOAT32, {2}), yv(y.data(), CUBRIDGE_FLOAT32, {2});
  seen = Seen();
  ASSERT_EQ(CallSaxpy(k, &xv.v, &yv.v, 1.0), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(seen.device, -1);
  EXPECT_EQ(seen.memory[0], CUBRIDGE_MEMORY_HOST);
  EXPECT_EQ(y, (std::vector<float>{2, 3}));
}

TEST(Bind, DtypeOutsideTheSetNamesTheArgument) {
  std::vector<int32_t> x = {1}, y = {1};
  View xv(x.data(), CUBRIDGE_INT32, {1}), yv(y.data(), CUBRIDGE_INT32, {1});
  seen = Seen();
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 1.0), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
  EXPECT_TRUE(Has(cubridge_last_error(), "saxpy: argument 'x' has dtype int32"))
      << cubridge_last_error();
  EXPECT_TRUE(Has(cubridge_last_error(), "float32 or float64")) << cubridge_last_error();
  EXPECT_EQ(seen.calls, 0);
}

TEST(Bind, LikeDtypeMismatchNamesBoth) {
  std::vector<float> x = {1};
  std::vector<double> y = {1};
  View xv(x.data(), CUBRIDGE_FLOAT32, {1}), yv(y.data(), CUBRIDGE_FLOAT64, {1});
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 1.0), CUBRIDGE_ERR_UNSUPPORTED_DTYPE);
  EXPECT_TRUE(Has(cubridge_last_error(),
                  "argument 'y' has dtype float64, but must have the dtype of 'x' (float32)"))
      << cubridge_last_error();
}

TEST(Bind, ShapeRelationsAreChecked) {
  std::vector<float> x(4), y(3);
  View xv(x.data(), CUBRIDGE_FLOAT32, {4}), yv(y.data(), CUBRIDGE_FLOAT32, {3});
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 1.0), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(),
                  "saxpy: argument 'y' has shape (3,), but n = 4 from 'x' (saxpy declares y[n])"))
      << cubridge_last_error();
  View x2(x.data(), CUBRIDGE_FLOAT32, {2, 2}), y4(x.data(), CUBRIDGE_FLOAT32, {4});
  EXPECT_EQ(CallSaxpy(kSaxpy, &x2.v, &y4.v, 1.0), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(),
                  "argument 'x' has 2 dimensions (shape (2, 2)), but saxpy declares x[n]"))
      << cubridge_last_error();
}

TEST(Bind, MissingAndOverlappingArrays) {
  std::vector<float> buf(8);
  View xv(buf.data(), CUBRIDGE_FLOAT32, {4}), yv(buf.data() + 2, CUBRIDGE_FLOAT32, {4});
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, nullptr, 1.0), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "saxpy: argument 'y' is missing"))
      << cubridge_last_error();
  seen = Seen();
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 1.0), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "arguments 'y' and 'x' overlap")) << cubridge_last_error();
  EXPECT_EQ(seen.calls, 0);
}

TEST(Bind, TheKernelsOwnFailureKeepsItsMessage) {
  std::vector<float> x = {1}, y = {1};
  View xv(x.data(), CUBRIDGE_FLOAT32, {1}), yv(y.data(), CUBRIDGE_FLOAT32, {1});
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, -1.0), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(cubridge_last_error(), "saxpy: a = -1 < 0");
}

TEST(Bind, EmptyCallRunsNothing) {
  View xv(nullptr, CUBRIDGE_FLOAT32, {0}), yv(nullptr, CUBRIDGE_FLOAT32, {0});
  seen = Seen();
  EXPECT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 1.0), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(seen.calls, 0);
}

TEST(Bind, NewerVersionIsRefused) {
  cubridge_kernel k = kSaxpy;
  k.version = CUBRIDGE_BIND_VERSION + 1;
  std::vector<float> x = {1}, y = {1};
  View xv(x.data(), CUBRIDGE_FLOAT32, {1}), yv(y.data(), CUBRIDGE_FLOAT32, {1});
  EXPECT_EQ(CallSaxpy(k, &xv.v, &yv.v, 1.0), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "rebuild it with this cubridge")) << cubridge_last_error();
}

// matmul: in a float32|float16 [m,k]; in b like a [k,n]; out c like a [m,n].
// uniform: scalar n int (sets n); out u float32 [n]; scalar seed int.
cubridge_status Nothing(const cubridge_launch*) { return CUBRIDGE_OK; }
const char* const kMatmulDims[] = {"m", "k", "n"};
const cubridge_kernel_param kMatmulParams[] = {
    {"a",
     CUBRIDGE_PARAM_IN,
     (1u << CUBRIDGE_FLOAT32) | (1u << CUBRIDGE_FLOAT16),
     -1,
     2,
     {-1, -2},
     -1},
    {"b", CUBRIDGE_PARAM_IN, 0, 0, 2, {-2, -3}, -1},
    {"c", CUBRIDGE_PARAM_OUT, 0, 0, 2, {-1, -3}, -1},
};
const cubridge_kernel kMatmul = {CUBRIDGE_BIND_VERSION,
                                 "matmul",
                                 nullptr,
                                 nullptr,
                                 CUBRIDGE_HOST_STAGE,
                                 CUBRIDGE_RESULT_ARRAY,
                                 3,
                                 kMatmulParams,
                                 3,
                                 kMatmulDims,
                                 Nothing};
const char* const kUniformDims[] = {"n"};
const cubridge_kernel_param kUniformParams[] = {
    {"n", CUBRIDGE_PARAM_INT, 0, -1, 0, {}, 0},
    {"u", CUBRIDGE_PARAM_OUT, 1u << CUBRIDGE_FLOAT32, -1, 1, {-1}, -1},
    {"seed", CUBRIDGE_PARAM_INT, 0, -1, 0, {}, -1},
};
const cubridge_kernel kUniform = {CUBRIDGE_BIND_VERSION,
                                  "uniform",
                                  nullptr,
                                  nullptr,
                                  CUBRIDGE_HOST_STAGE,
                                  CUBRIDGE_RESULT_ARRAY,
                                  3,
                                  kUniformParams,
                                  1,
                                  kUniformDims,
                                  Nothing};

cubridge_kernel_call_state Begin(const cubridge_kernel& k) {
  cubridge_kernel_call_state s;
  s.struct_size = sizeof(s);
  EXPECT_EQ(cubridge_kernel_begin(&s, &k), CUBRIDGE_OK) << cubridge_last_error();
  return s;
}

TEST(Bind, ResultShapeFollowsTheInputs) {
  cubridge_kernel_call_state s = Begin(kMatmul);
  std::vector<float> a(6), b(12);
  View av(a.data(), CUBRIDGE_FLOAT32, {2, 3}), bv(b.data(), CUBRIDGE_FLOAT32, {3, 4});
  int dtype = -1, ndim = -1;
  int64_t shape[CUBRIDGE_KERNEL_MAX_NDIM];
  ASSERT_EQ(cubridge_kernel_array(&s, 0, &av.v), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_kernel_result(&s, 2, &dtype, &ndim, shape), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "matmul: pass 'c': its dimension n does not follow"))
      << cubridge_last_error();
  ASSERT_EQ(cubridge_kernel_array(&s, 1, &bv.v), CUBRIDGE_OK) << cubridge_last_error();
  ASSERT_EQ(cubridge_kernel_result(&s, 2, &dtype, &ndim, shape), CUBRIDGE_OK)
      << cubridge_last_error();
  EXPECT_EQ(dtype, CUBRIDGE_FLOAT32);
  EXPECT_EQ(ndim, 2);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 4);
  View bad(b.data(), CUBRIDGE_FLOAT32, {4, 3});
  cubridge_kernel_call_state s2 = Begin(kMatmul);
  ASSERT_EQ(cubridge_kernel_array(&s2, 0, &av.v), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_kernel_array(&s2, 1, &bad.v), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(),
                  "argument 'b' has shape (4, 3), but k = 3 from 'a' (matmul declares b[k,n])"))
      << cubridge_last_error();
}

TEST(Bind, IntScalarSizesAnOutput) {
  cubridge_kernel_call_state s = Begin(kUniform);
  cubridge_scalar n;
  n.i = -2;
  EXPECT_EQ(cubridge_kernel_scalar(&s, 0, n), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "argument 'n' = -2 is a size: it must be >= 0"))
      << cubridge_last_error();
  n.i = 5;
  ASSERT_EQ(cubridge_kernel_scalar(&s, 0, n), CUBRIDGE_OK) << cubridge_last_error();
  int dtype = -1, ndim = -1;
  int64_t shape[CUBRIDGE_KERNEL_MAX_NDIM];
  ASSERT_EQ(cubridge_kernel_result(&s, 1, &dtype, &ndim, shape), CUBRIDGE_OK);
  EXPECT_EQ(dtype, CUBRIDGE_FLOAT32);
  EXPECT_EQ(ndim, 1);
  EXPECT_EQ(shape[0], 5);
  std::vector<float> u(4);
  View uv(u.data(), CUBRIDGE_FLOAT32, {4});
  EXPECT_EQ(cubridge_kernel_array(&s, 1, &uv.v), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "argument 'u' has shape (4,), but n = 5 from 'n'"))
      << cubridge_last_error();
  // A scalar where an array is declared, and the other way round.
  EXPECT_EQ(cubridge_kernel_array(&s, 0, &uv.v), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(cubridge_kernel_scalar(&s, 1, n), CUBRIDGE_ERR_INVALID_ARGUMENT);
}

TEST(Bind, DeviceArraysRunOnTheirStream) {
  if (!OnCuda()) GTEST_SKIP() << "needs a GPU";
  const size_t n = 1000;
  void *x = nullptr, *y = nullptr;
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &x), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_malloc(CUBRIDGE_MEMORY_DEVICE, n * 4, &y), CUBRIDGE_OK);
  cubridge_stream s = nullptr;
  ASSERT_EQ(cubridge_stream_create(&s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 2, x, n, s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_fill(CUBRIDGE_FLOAT32, 1, y, n, s), CUBRIDGE_OK);
  View xv(x, CUBRIDGE_FLOAT32, {static_cast<int64_t>(n)}, CUBRIDGE_MEMORY_DEVICE);
  View yv(y, CUBRIDGE_FLOAT32, {static_cast<int64_t>(n)}, CUBRIDGE_MEMORY_DEVICE);
  seen = Seen();
  ASSERT_EQ(CallSaxpy(kSaxpy, &xv.v, &yv.v, 3.0, s), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(seen.device, 0);
  std::vector<float> out(n);
  ASSERT_EQ(cubridge_stream_synchronize(s), CUBRIDGE_OK);
  ASSERT_EQ(cubridge_memcpy(out.data(), y, n * 4, nullptr), CUBRIDGE_OK);
  EXPECT_EQ(out, std::vector<float>(n, 7.0f));
  // Host and device arrays mixed under the host policy "cpu" are refused.
  const cubridge_kernel cpu = MakeSaxpy(CUBRIDGE_HOST_CPU);
  std::vector<float> hx(n);
  View hv(hx.data(), CUBRIDGE_FLOAT32, {static_cast<int64_t>(n)});
  EXPECT_EQ(CallSaxpy(cpu, &hv.v, &yv.v, 1.0, s), CUBRIDGE_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(cubridge_last_error(), "argument 'y' is device memory but others are host"))
      << cubridge_last_error();
  // Staged under "stage": a host x with a device y.
  ASSERT_EQ(CallSaxpy(kSaxpy, &hv.v, &yv.v, 1.0, s), CUBRIDGE_OK) << cubridge_last_error();
  EXPECT_EQ(cubridge_stream_destroy(s), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, x), CUBRIDGE_OK);
  EXPECT_EQ(cubridge_free(CUBRIDGE_MEMORY_DEVICE, y), CUBRIDGE_OK);
}

}  // namespace
}  // namespace cubridge_test
