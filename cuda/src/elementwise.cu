// The elementwise ops of the C ABI: argument checks, then one generic launch.
#include <math.h>
#include <string.h>

#include <type_traits>

#include "checks.h"
#include "dtypes.h"
#include "elementwise.cuh"
#include "route.h"
#include "streams.h"

using namespace cubridge;

namespace {

// alpha for an integer dtype must be a whole number in int64 range.
cubridge_status check_alpha(const char* fn, int dtype, double alpha) {
  if (dtype_is_float(dtype)) return CUBRIDGE_OK;
  if (!(alpha == floor(alpha)) || !(alpha >= -9223372036854775808.0) ||
      !(alpha < 9223372036854775808.0)) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'alpha' = %g must be a whole number in int64 range for dtype %s", fn,
                alpha, dtype_name(dtype));
  }
  return CUBRIDGE_OK;
}

template <class T>
ScalarOf<T> scalar_of(double alpha) {
  if constexpr (is_int_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(alpha)));
  } else {
    return static_cast<ScalarOf<T>>(alpha);
  }
}

// An array argument of an op, by name (for messages) and pointer.
struct Operand {
  const char* name;
  const void* ptr;
};

// out[i] = op(a[i], b[i]) over n elements of `dtype`, op = make_op(Tag<T>):
// the first kInputs of a, b are inputs, the rest absent (None). An input named
// like `out` is updated in place. `alpha`, when given, is checked for the dtype.
template <int kInputs, class MakeOp>
cubridge_status elementwise(const char* fn, int dtype, size_t n, Operand out, Operand a, Operand b,
                            const double* alpha, cubridge_stream stream, MakeOp make_op) {
  clear_error();
  Route r;  // first: takes this thread's cubridge_assume_device hint
  CUBRIDGE_TRY(check_dtype(fn, "dtype", dtype));
  const size_t sz = dtype_size(dtype);
  CUBRIDGE_TRY(check_length(fn, n, sz));
  if (alpha != nullptr) CUBRIDGE_TRY(check_alpha(fn, dtype, *alpha));
  if (n == 0) return CUBRIDGE_OK;
  // The distinct arrays, inputs first: null checks, overlaps and the route.
  Arg args[3];
  int count = 0;
  const Operand inputs[2] = {a, b};
  for (int i = 0; i < kInputs; ++i) args[count++] = {inputs[i].name, inputs[i].ptr};
  bool in_place = false;
  for (int i = 0; i < kInputs; ++i) in_place = in_place || strcmp(inputs[i].name, out.name) == 0;
  if (!in_place) args[count++] = {out.name, out.ptr};
  for (int i = 0; i < count; ++i) CUBRIDGE_TRY(check_not_null(fn, args[i].name, args[i].ptr, n));
  for (int i = 0; i < kInputs; ++i) {
    if (strcmp(inputs[i].name, out.name) == 0) continue;
    CUBRIDGE_TRY(check_overlap(fn, out.name, out.ptr, sz, inputs[i].name, inputs[i].ptr, sz, n));
  }
  // Bytes moved: each input read once, out written once.
  CUBRIDGE_TRY(route(fn, args, count, (kInputs + 1) * n * sz, stream, &r));
  // Nothing to read: the GPU cannot beat CPU threads writing host memory.
  if (kInputs == 0 && r.path == Path::kHost) r.path = Path::kCpu;
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using TA = std::conditional_t<(kInputs >= 1), T, None>;
    using TB = std::conditional_t<(kInputs >= 2), T, None>;
    return run_elementwise(fn, r, make_op(tag), static_cast<T*>(const_cast<void*>(out.ptr)),
                           static_cast<const TA*>(a.ptr), static_cast<const TB*>(b.ptr), n,
                           raw_stream(stream));
  });
}

// Two-input ops: a, b -> out.
template <class MakeOp>
cubridge_status binary(const char* fn, int dtype, const void* a, const void* b, void* out, size_t n,
                       cubridge_stream stream, MakeOp make_op) {
  return elementwise<2>(fn, dtype, n, {"out", out}, {"a", a}, {"b", b}, nullptr, stream, make_op);
}

// out = alpha * x + y and out = alpha * x; `out` named like an input is that
// input updated in place.
cubridge_status axpy(const char* fn, int dtype, double alpha, Operand out, Operand x, Operand y,
                     size_t n, cubridge_stream stream) {
  return elementwise<2>(fn, dtype, n, out, x, y, &alpha, stream, [alpha](auto tag) {
    using T = typename decltype(tag)::type;
    return AxpyOp<T>{scalar_of<T>(alpha)};
  });
}

cubridge_status scale(const char* fn, int dtype, double alpha, Operand out, Operand x, size_t n,
                      cubridge_stream stream) {
  return elementwise<1>(fn, dtype, n, out, x, {}, &alpha, stream, [alpha](auto tag) {
    using T = typename decltype(tag)::type;
    return ScaleOp<T>{scalar_of<T>(alpha)};
  });
}

}  // namespace

extern "C" {

CUBRIDGE_API cubridge_status cubridge_add(int dtype, const void* a, const void* b, void* out,
                                          size_t n, cubridge_stream stream) {
  return binary("cubridge_add", dtype, a, b, out, n, stream,
                [](auto tag) { return AddOp<typename decltype(tag)::type>{}; });
}

CUBRIDGE_API cubridge_status cubridge_sub(int dtype, const void* a, const void* b, void* out,
                                          size_t n, cubridge_stream stream) {
  return binary("cubridge_sub", dtype, a, b, out, n, stream,
                [](auto tag) { return SubOp<typename decltype(tag)::type>{}; });
}

CUBRIDGE_API cubridge_status cubridge_mul(int dtype, const void* a, const void* b, void* out,
                                          size_t n, cubridge_stream stream) {
  return binary("cubridge_mul", dtype, a, b, out, n, stream,
                [](auto tag) { return MulOp<typename decltype(tag)::type>{}; });
}

CUBRIDGE_API cubridge_status cubridge_div(int dtype, const void* a, const void* b, void* out,
                                          size_t n, double zero_value, cubridge_stream stream) {
  return binary("cubridge_div", dtype, a, b, out, n, stream, [zero_value](auto tag) {
    using T = typename decltype(tag)::type;
    return DivOp<T>{convert_value<T, double>(zero_value)};
  });
}

CUBRIDGE_API cubridge_status cubridge_axpy(int dtype, double alpha, const void* x, void* y,
                                           size_t n, cubridge_stream stream) {
  return axpy("cubridge_axpy", dtype, alpha, {"y", y}, {"x", x}, {"y", y}, n, stream);
}

CUBRIDGE_API cubridge_status cubridge_axpy_out(int dtype, double alpha, const void* x,
                                               const void* y, void* out, size_t n,
                                               cubridge_stream stream) {
  return axpy("cubridge_axpy_out", dtype, alpha, {"out", out}, {"x", x}, {"y", y}, n, stream);
}

CUBRIDGE_API cubridge_status cubridge_scale(int dtype, double alpha, void* x, size_t n,
                                            cubridge_stream stream) {
  return scale("cubridge_scale", dtype, alpha, {"x", x}, {"x", x}, n, stream);
}

CUBRIDGE_API cubridge_status cubridge_scale_out(int dtype, double alpha, const void* x, void* out,
                                                size_t n, cubridge_stream stream) {
  return scale("cubridge_scale_out", dtype, alpha, {"out", out}, {"x", x}, n, stream);
}

CUBRIDGE_API cubridge_status cubridge_fill(int dtype, double value, void* x, size_t n,
                                           cubridge_stream stream) {
  return elementwise<0>("cubridge_fill", dtype, n, {"x", x}, {}, {}, nullptr, stream,
                        [value](auto tag) {
                          using T = typename decltype(tag)::type;
                          return FillOp<T>{convert_value<T, double>(value)};
                        });
}

CUBRIDGE_API cubridge_status cubridge_convert(int src_dtype, const void* src, int dst_dtype,
                                              void* dst, size_t n, cubridge_stream stream) {
  const char* fn = "cubridge_convert";
  clear_error();
  Route r;
  CUBRIDGE_TRY(check_dtype(fn, "src_dtype", src_dtype));
  CUBRIDGE_TRY(check_dtype(fn, "dst_dtype", dst_dtype));
  const size_t ss = dtype_size(src_dtype), ds = dtype_size(dst_dtype);
  CUBRIDGE_TRY(check_length(fn, n, ss > ds ? ss : ds));
  if (n == 0) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "src", src, n));
  CUBRIDGE_TRY(check_not_null(fn, "dst", dst, n));
  CUBRIDGE_TRY(check_overlap(fn, "dst", dst, ds, "src", src, ss, n));
  const Arg args[] = {{"src", src}, {"dst", dst}};
  CUBRIDGE_TRY(route(fn, args, 2, n * (ss + ds), stream, &r));
  return dispatch(src_dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto stag) {
    using S = typename decltype(stag)::type;
    return dispatch(dst_dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto dtag) {
      using D = typename decltype(dtag)::type;
      return run_elementwise(fn, r, ConvertOp<D, S>{}, static_cast<D*>(dst),
                             static_cast<const S*>(src), static_cast<const None*>(nullptr), n,
                             raw_stream(stream));
    });
  });
}

}  // extern "C"
