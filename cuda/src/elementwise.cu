// The elementwise ops of the C ABI: argument checks, then one generic launch.
#include <math.h>

#include "dtypes.h"
#include "elementwise.cuh"
#include "streams.h"

using namespace cubridge;

namespace {

// Checks shared by every elementwise op; sets *done when there is no work.
cubridge_status check_common(const char* fn, int dtype, size_t n, bool* done) {
  *done = false;
  CUBRIDGE_TRY(check_dtype(fn, "dtype", dtype));
  CUBRIDGE_TRY(check_length(fn, n, dtype_size(dtype)));
  if (n == 0) *done = true;
  return CUBRIDGE_OK;
}

// Two-input ops: a, b -> out.
template <class MakeOp>
cubridge_status binary(const char* fn, int dtype, const void* a, const void* b, void* out, size_t n,
                       cubridge_stream stream, MakeOp make_op) {
  clear_error();
  Route r;  // first: takes this thread's cubridge_assume_device hint
  bool done;
  CUBRIDGE_TRY(check_common(fn, dtype, n, &done));
  if (done) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "a", a, n));
  CUBRIDGE_TRY(check_not_null(fn, "b", b, n));
  CUBRIDGE_TRY(check_not_null(fn, "out", out, n));
  const size_t sz = dtype_size(dtype);
  CUBRIDGE_TRY(check_overlap(fn, "out", out, sz, "a", a, sz, n));
  CUBRIDGE_TRY(check_overlap(fn, "out", out, sz, "b", b, sz, n));
  const Arg args[] = {{"a", a}, {"b", b}, {"out", out}};
  CUBRIDGE_TRY(route(fn, args, 3, 3 * n * sz, stream, &r));
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_elementwise(fn, r, make_op(tag), static_cast<T*>(out), static_cast<const T*>(a),
                           static_cast<const T*>(b), n, raw_stream(stream));
  });
}

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
  const char* fn = "cubridge_axpy";
  clear_error();
  Route r;
  bool done;
  CUBRIDGE_TRY(check_common(fn, dtype, n, &done));
  CUBRIDGE_TRY(check_alpha(fn, dtype, alpha));
  if (done) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "x", x, n));
  CUBRIDGE_TRY(check_not_null(fn, "y", y, n));
  const size_t sz = dtype_size(dtype);
  CUBRIDGE_TRY(check_overlap(fn, "y", y, sz, "x", x, sz, n));
  const Arg args[] = {{"x", x}, {"y", y}};
  CUBRIDGE_TRY(route(fn, args, 2, 3 * n * sz, stream, &r));
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_elementwise(fn, r, AxpyOp<T>{scalar_of<T>(alpha)}, static_cast<T*>(y),
                           static_cast<const T*>(x), static_cast<const T*>(y), n,
                           raw_stream(stream));
  });
}

CUBRIDGE_API cubridge_status cubridge_scale(int dtype, double alpha, void* x, size_t n,
                                            cubridge_stream stream) {
  const char* fn = "cubridge_scale";
  clear_error();
  Route r;
  bool done;
  CUBRIDGE_TRY(check_common(fn, dtype, n, &done));
  CUBRIDGE_TRY(check_alpha(fn, dtype, alpha));
  if (done) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "x", x, n));
  const size_t sz = dtype_size(dtype);
  const Arg args[] = {{"x", x}};
  CUBRIDGE_TRY(route(fn, args, 1, 2 * n * sz, stream, &r));
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_elementwise(fn, r, ScaleOp<T>{scalar_of<T>(alpha)}, static_cast<T*>(x),
                           static_cast<const T*>(x), static_cast<const None*>(nullptr), n,
                           raw_stream(stream));
  });
}

CUBRIDGE_API cubridge_status cubridge_fill(int dtype, double value, void* x, size_t n,
                                           cubridge_stream stream) {
  const char* fn = "cubridge_fill";
  clear_error();
  Route r;
  bool done;
  CUBRIDGE_TRY(check_common(fn, dtype, n, &done));
  if (done) return CUBRIDGE_OK;
  CUBRIDGE_TRY(check_not_null(fn, "x", x, n));
  const Arg args[] = {{"x", x}};
  CUBRIDGE_TRY(route(fn, args, 1, n * dtype_size(dtype), stream, &r));
  if (r.path == Path::kHost) r.path = Path::kCpu;  // nothing to gain on the GPU
  return dispatch(dtype, CUBRIDGE_ERR_UNSUPPORTED_DTYPE, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_elementwise(fn, r, FillOp<T>{convert_value<T, double>(value)}, static_cast<T*>(x),
                           static_cast<const None*>(nullptr), static_cast<const None*>(nullptr), n,
                           raw_stream(stream));
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
