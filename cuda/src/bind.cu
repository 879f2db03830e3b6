// Your own kernels behind the front ends (cubridge/bind.h): a declared
// kernel's arguments checked against its declaration, then run inside a
// runtime call on the arrays' device, host arrays staged or run on the host.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cubridge/bind.h"
#include "devices.h"
#include "dtypes.h"
#include "status.h"
#include "streams.h"
#include "view.h"

namespace cubridge {
namespace {

bool is_array(int kind) {
  return kind == CUBRIDGE_PARAM_IN || kind == CUBRIDGE_PARAM_OUT || kind == CUBRIDGE_PARAM_INOUT;
}

bool writes(int kind) { return kind == CUBRIDGE_PARAM_OUT || kind == CUBRIDGE_PARAM_INOUT; }

const char* kernel_name(const cubridge_kernel* k) { return k->name ? k->name : "kernel"; }

// "(2, 3)" into buf.
const char* shape_text(const cubridge_view* v, char* buf, size_t len) {
  size_t used = static_cast<size_t>(snprintf(buf, len, "("));
  for (int i = 0; i < v->ndim && used < len; ++i) {
    used += static_cast<size_t>(snprintf(buf + used, len - used, "%s%lld", i ? ", " : "",
                                         static_cast<long long>(v->shape[i])));
  }
  if (used < len) snprintf(buf + used, len - used, v->ndim == 1 ? ",)" : ")");
  return buf;
}

// "x[n, 3]": how the declaration writes parameter p's shape.
const char* decl_text(const cubridge_kernel* k, const cubridge_kernel_param* p, char* buf,
                      size_t len) {
  size_t used = static_cast<size_t>(snprintf(buf, len, "%s[", p->name));
  for (int i = 0; i < p->ndim && used < len; ++i) {
    const int d = p->dims[i];
    used += static_cast<size_t>(
        d >= 0 ? snprintf(buf + used, len - used, "%s%d", i ? "," : "", d)
               : snprintf(buf + used, len - used, "%s%s", i ? "," : "", k->dims[-1 - d]));
  }
  if (used < len) snprintf(buf + used, len - used, "]");
  return buf;
}

// "float32 or float64" into buf.
const char* dtype_set_text(unsigned set, char* buf, size_t len) {
  buf[0] = '\0';
  size_t used = 0;
  int seen = 0, total = __builtin_popcount(set);
  for (int d = 0; d < 32 && used < len; ++d) {
    if ((set & (1u << d)) == 0 || dtype_name(d) == nullptr) continue;
    ++seen;
    const char* sep = seen == 1 ? "" : seen == total ? " or " : ", ";
    used += static_cast<size_t>(snprintf(buf + used, len - used, "%s%s", sep, dtype_name(d)));
  }
  return buf;
}

cubridge_status check_state(const char* fn, const cubridge_kernel_call_state* s) {
  if (s == nullptr || s->struct_size < sizeof(cubridge_kernel_call_state) || s->kernel == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'state' is NULL, not begun, or its struct_size is not "
                "sizeof(cubridge_kernel_call_state) = %zu",
                fn, sizeof(cubridge_kernel_call_state));
  }
  return CUBRIDGE_OK;
}

cubridge_status check_param(const char* fn, const cubridge_kernel_call_state* s, int param,
                            bool array) {
  const cubridge_kernel* k = s->kernel;
  if (param < 0 || param >= k->nparams || is_array(k->params[param].kind) != array) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: %s has no %s parameter %d", fn, kernel_name(k),
                array ? "array" : "scalar", param);
  }
  return CUBRIDGE_OK;
}

// Symbol `sym` is `size`, as parameter `param` says: the first to say it
// sets it, every later one must agree.
cubridge_status bind_dim(cubridge_kernel_call_state* s, int sym, int64_t size, int param,
                         const cubridge_view* v) {
  const cubridge_kernel* k = s->kernel;
  const char* name = k->dims[sym];
  const int from = s->dim_from[sym];
  if (from < 0) {
    s->dim_from[sym] = param;
    s->dims[sym] = size;
    return CUBRIDGE_OK;
  }
  if (s->dims[sym] == size) return CUBRIDGE_OK;
  char decl[128], shape[256];
  const cubridge_kernel_param* p = &k->params[param];
  const char* source = k->params[from].name;
  if (v == nullptr) {  // an int scalar
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument '%s' = %lld, but '%s' gave %s = %lld",
                kernel_name(k), p->name, static_cast<long long>(size), source, name,
                static_cast<long long>(s->dims[sym]));
  }
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: argument '%s' has shape %s, but %s = %lld from '%s' (%s declares %s)",
              kernel_name(k), p->name, shape_text(v, shape, sizeof shape), name,
              static_cast<long long>(s->dims[sym]), source, kernel_name(k),
              decl_text(k, p, decl, sizeof decl));
}

// Parameter p's dtype against the parameters whose dtype it must share.
cubridge_status check_like(const cubridge_kernel_call_state* s, int p) {
  const cubridge_kernel* k = s->kernel;
  for (int q = 0; q < k->nparams; ++q) {
    if (q == p || (s->given & (1u << q)) == 0) continue;
    const int a = k->params[p].like == q ? p : k->params[q].like == p ? q : -1;
    if (a < 0 || s->dtypes[p] == s->dtypes[q]) continue;
    const int b = a == p ? q : p;  // the one whose dtype `a` must have
    return fail(CUBRIDGE_ERR_UNSUPPORTED_DTYPE,
                "%s: argument '%s' has dtype %s, but must have the dtype of '%s' (%s)",
                kernel_name(k), k->params[a].name, dtype_name(s->dtypes[a]), k->params[b].name,
                dtype_name(s->dtypes[b]));
  }
  return CUBRIDGE_OK;
}

// The dtypes parameter p may have: its own set, or the set of the one it is like.
unsigned dtype_set(const cubridge_kernel* k, int p) {
  for (int hops = 0; hops < k->nparams && k->params[p].like >= 0; ++hops) p = k->params[p].like;
  return k->params[p].dtypes;
}

bool overlap(const cubridge_view* a, const cubridge_view* b) {
  if (a->nbytes == 0 || b->nbytes == 0) return false;
  const uintptr_t a0 = reinterpret_cast<uintptr_t>(a->data),
                  b0 = reinterpret_cast<uintptr_t>(b->data);
  return a0 < b0 + b->nbytes && b0 < a0 + a->nbytes;
}

bool host_memory(const cubridge_view* v) { return v->memory == CUBRIDGE_MEMORY_HOST; }

// Puts "<prefix>: " before this thread's message; returns `status`.
cubridge_status prefix_error(cubridge_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
cubridge_status prefix_error(cubridge_status status, const char* fmt, ...) {
  char prefix[256], message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  snprintf(message, sizeof message, "%s", last_error());
  return fail(status, "%s: %s", prefix, message);
}

// Keeps this thread's message across clean-up calls (which clear it) when
// `status` is a failure.
class MessageKeeper {
 public:
  explicit MessageKeeper(cubridge_status status) : status_(status) {
    if (status_ != CUBRIDGE_OK) snprintf(message_, sizeof message_, "%s", last_error());
  }
  ~MessageKeeper() {
    if (status_ != CUBRIDGE_OK) fail(status_, "%s", message_);
  }
  MessageKeeper(const MessageKeeper&) = delete;
  MessageKeeper& operator=(const MessageKeeper&) = delete;

 private:
  cubridge_status status_;
  char message_[512] = "";
};

// What the entry point's helpers call back.
cubridge_status launch_fail(const cubridge_launch* l, cubridge_status status, const char* message) {
  return fail(status, "%s: %s", kernel_name(l->kernel), message ? message : "failed");
}

cubridge_status launch_cuda(const cubridge_launch* l, int error, const char* what) {
  if (error == 0) return CUBRIDGE_OK;
  return fail_cuda(static_cast<cudaError_t>(error), kernel_name(l->kernel), what ? what : "CUDA");
}

// The device the kernel runs on: that of its device and managed arrays (one
// for all), else the stream's, else the current one.
cubridge_status pick_device(const cubridge_kernel_call_state* s, const cubridge_call* call,
                            int* device) {
  const cubridge_kernel* k = s->kernel;
  const char* fn = kernel_name(k);
  int from = -1;
  *device = -1;
  for (int p = 0; p < k->nparams; ++p) {
    const cubridge_view* v = s->arrays[p];
    if (v == nullptr || v->device < 0 ||
        (v->memory != CUBRIDGE_MEMORY_DEVICE && v->memory != CUBRIDGE_MEMORY_MANAGED)) {
      continue;
    }
    if (from < 0) {
      from = p;
      *device = v->device;
    } else if (v->device != *device) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' is on device %d but '%s' on device %d: one call runs on one "
                  "device",
                  fn, v->name, v->device, k->params[from].name, *device);
    }
  }
  const int stream_device = call->stream != nullptr ? call->stream->device : -1;
  if (stream_device >= 0 && *device >= 0 && stream_device != *device) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: the stream is on device %d but argument '%s' on device %d", fn, stream_device,
                k->params[from].name, *device);
  }
  if (*device < 0) *device = stream_device;
  if (*device < 0) return current_device(fn, device);
  return CUBRIDGE_OK;
}

// A staged host array: device memory of the library on the call's stream.
struct Staged {
  cubridge_array array = nullptr;
  cubridge_view view;
};

cubridge_status stage_in(const char* fn, const cubridge_view* host, int kind, int device,
                         const cubridge_call* call, Staged* st) {
  CUBRIDGE_TRY(cubridge_array_create(CUBRIDGE_MEMORY_DEVICE, host->nbytes, device, call->stream,
                                     &st->array));
  cubridge_array_info info;
  info.struct_size = sizeof info;
  CUBRIDGE_TRY(cubridge_array_get_info(st->array, &info));
  st->view = *host;
  st->view.data = info.data;
  st->view.strides = nullptr;
  st->view.memory = CUBRIDGE_MEMORY_DEVICE;
  st->view.device = device;
  st->view.array = st->array;
  st->view.producer = 0;
  if (kind == CUBRIDGE_PARAM_OUT || host->nbytes == 0) return CUBRIDGE_OK;
  cubridge_status status = cubridge_memcpy(info.data, host->data, host->nbytes, call->stream);
  if (status != CUBRIDGE_OK) prefix_error(status, "%s: staging '%s' in", fn, host->name);
  return status;
}

// Runs the entry point on `device` (-1: on the host) with `arrays`.
cubridge_status run_entry(cubridge_kernel_call_state* s, const cubridge_call* call, int device,
                          const cubridge_view* const* arrays) {
  cubridge_launch l;
  memset(&l, 0, sizeof l);
  l.struct_size = sizeof l;
  l.kernel = s->kernel;
  l.arrays = arrays;
  l.scalars = s->scalars;
  l.dims = s->dims;
  l.device = device;
  l.stream = device >= 0 ? call->handle : 0;
  l.fail = launch_fail;
  l.cuda_error = launch_cuda;
  clear_error();
  cubridge_status status = s->kernel->entry(&l);
  if (status != CUBRIDGE_OK && last_error()[0] == '\0') {
    fail(status, "%s: the kernel returned %s", kernel_name(s->kernel),
         cubridge_status_name(status));
  }
  return status;
}

// The device path: host arrays staged, the device current, the entry point,
// staged outputs copied back.
cubridge_status launch_on_device(cubridge_kernel_call_state* s, cubridge_call* call, int device) {
  const cubridge_kernel* k = s->kernel;
  const char* fn = kernel_name(k);
  Staged staged[CUBRIDGE_KERNEL_MAX_PARAMS];
  const cubridge_view* arrays[CUBRIDGE_KERNEL_MAX_PARAMS] = {};
  DeviceGuard guard;
  cubridge_status status = guard.enter(fn, device);
  for (int p = 0; p < k->nparams && status == CUBRIDGE_OK; ++p) {
    const cubridge_view* v = s->arrays[p];
    arrays[p] = v;
    if (v == nullptr || !host_memory(v)) continue;
    if (call->capturing) {
      status = fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                    "%s: argument '%s' is host memory, which cannot be staged while the stream "
                    "records a graph: pass device arrays",
                    fn, v->name);
      break;
    }
    status = stage_in(fn, v, k->params[p].kind, device, call, &staged[p]);
    arrays[p] = &staged[p].view;
  }
  if (status == CUBRIDGE_OK) status = run_entry(s, call, device, arrays);
  for (int p = 0; p < k->nparams; ++p) {
    Staged* st = &staged[p];
    if (st->array == nullptr) continue;
    const cubridge_view* host = s->arrays[p];
    if (status == CUBRIDGE_OK && writes(k->params[p].kind) && host->nbytes > 0) {
      // To pageable memory: returns when the copy is done.
      status = cubridge_memcpy(host->data, st->view.data, host->nbytes, call->stream);
      if (status != CUBRIDGE_OK) prefix_error(status, "%s: staging '%s' out", fn, host->name);
    }
    // The block is reused only after the work queued on it: its use is recorded.
    MessageKeeper keep(status);
    (void)cubridge_array_release(st->array, call->stream, CUBRIDGE_ACCESS_WRITE);
    (void)cubridge_array_destroy(st->array);
  }
  return status;
}

}  // namespace
}  // namespace cubridge

using namespace cubridge;

extern "C" {

CUBRIDGE_API cubridge_status cubridge_kernel_begin(cubridge_kernel_call_state* state,
                                                   const cubridge_kernel* kernel) {
  const char* fn = "cubridge_kernel_begin";
  clear_error();
  if (state == nullptr || state->struct_size < sizeof(cubridge_kernel_call_state)) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'state' is NULL or its struct_size is not "
                "sizeof(cubridge_kernel_call_state) = %zu",
                fn, sizeof(cubridge_kernel_call_state));
  }
  state->kernel = nullptr;
  if (kernel == nullptr || kernel->entry == nullptr || kernel->params == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'kernel' is NULL or incomplete", fn);
  }
  if (kernel->version < 1 || kernel->version > CUBRIDGE_BIND_VERSION) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: kernel '%s' was generated for binding version %d; this library (%d.%d.%d) "
                "reads versions 1 to %d: rebuild it with this cubridge",
                fn, kernel_name(kernel), kernel->version, CUBRIDGE_VERSION_MAJOR,
                CUBRIDGE_VERSION_MINOR, CUBRIDGE_VERSION_PATCH, CUBRIDGE_BIND_VERSION);
  }
  if (kernel->nparams < 1 || kernel->nparams > CUBRIDGE_KERNEL_MAX_PARAMS || kernel->ndims < 0 ||
      kernel->ndims > CUBRIDGE_KERNEL_MAX_DIMS || (kernel->ndims > 0 && kernel->dims == nullptr)) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: kernel '%s' has %d parameters and %d dimension symbols (at most %d and %d)",
                fn, kernel_name(kernel), kernel->nparams, kernel->ndims, CUBRIDGE_KERNEL_MAX_PARAMS,
                CUBRIDGE_KERNEL_MAX_DIMS);
  }
  state->kernel = kernel;
  state->given = 0;
  for (int i = 0; i < CUBRIDGE_KERNEL_MAX_PARAMS; ++i) {
    state->arrays[i] = nullptr;
    state->dtypes[i] = -1;
  }
  for (int i = 0; i < CUBRIDGE_KERNEL_MAX_DIMS; ++i) state->dim_from[i] = -1;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_kernel_scalar(cubridge_kernel_call_state* state, int param,
                                                    cubridge_scalar value) {
  const char* fn = "cubridge_kernel_scalar";
  clear_error();
  CUBRIDGE_TRY(check_state(fn, state));
  CUBRIDGE_TRY(check_param(fn, state, param, false));
  const cubridge_kernel* k = state->kernel;
  const cubridge_kernel_param* p = &k->params[param];
  state->scalars[param] = value;
  state->given |= 1u << param;
  if (p->kind != CUBRIDGE_PARAM_INT || p->sets_dim < 0) return CUBRIDGE_OK;
  if (value.i < 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument '%s' = %lld is a size: it must be >= 0", kernel_name(k), p->name,
                static_cast<long long>(value.i));
  }
  return bind_dim(state, p->sets_dim, value.i, param, nullptr);
}

CUBRIDGE_API cubridge_status cubridge_kernel_array(cubridge_kernel_call_state* state, int param,
                                                   cubridge_view* view) {
  const char* fn = "cubridge_kernel_array";
  clear_error();
  CUBRIDGE_TRY(check_state(fn, state));
  CUBRIDGE_TRY(check_param(fn, state, param, true));
  const cubridge_kernel* k = state->kernel;
  const cubridge_kernel_param* p = &k->params[param];
  if (view == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument '%s' is missing", kernel_name(k),
                p->name);
  }
  if (view->name == nullptr) view->name = p->name;
  const unsigned set = dtype_set(k, param);
  if (view->dtype < 0 || view->dtype >= 32 || (set & (1u << view->dtype)) == 0) {
    char want[128];
    const char* has = view->dtype >= 0 ? dtype_name(view->dtype) : nullptr;
    return fail(CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "%s: argument '%s' has dtype %s; %s takes %s there",
                kernel_name(k), p->name,
                has                ? has
                : view->dtype_desc ? view->dtype_desc
                                   : "unknown",
                kernel_name(k), dtype_set_text(set, want, sizeof want));
  }
  if (view->ndim != p->ndim) {
    char decl[128], shape[256];
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument '%s' has %d dimension%s (shape %s), but %s declares %s",
                kernel_name(k), p->name, view->ndim, view->ndim == 1 ? "" : "s",
                shape_text(view, shape, sizeof shape), kernel_name(k),
                decl_text(k, p, decl, sizeof decl));
  }
  state->arrays[param] = view;
  state->dtypes[param] = view->dtype;
  state->given |= 1u << param;
  CUBRIDGE_TRY(check_like(state, param));
  for (int i = 0; i < p->ndim; ++i) {
    const int d = p->dims[i];
    if (d >= 0 && view->shape[i] != d) {
      char decl[128], shape[256];
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' has shape %s, but %s declares %s", kernel_name(k), p->name,
                  shape_text(view, shape, sizeof shape), kernel_name(k),
                  decl_text(k, p, decl, sizeof decl));
    }
    if (d < 0) CUBRIDGE_TRY(bind_dim(state, -1 - d, view->shape[i], param, view));
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_kernel_result(const cubridge_kernel_call_state* state,
                                                    int param, int* dtype, int* ndim,
                                                    int64_t* shape) {
  const char* fn = "cubridge_kernel_result";
  clear_error();
  CUBRIDGE_TRY(check_state(fn, state));
  CUBRIDGE_TRY(check_param(fn, state, param, true));
  if (dtype == nullptr || ndim == nullptr || shape == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: dtype, ndim and shape must not be NULL", fn);
  }
  const cubridge_kernel* k = state->kernel;
  const cubridge_kernel_param* p = &k->params[param];
  *dtype = -1;
  if (p->like >= 0) {
    *dtype = state->dtypes[p->like];
  } else if (__builtin_popcount(p->dtypes) == 1) {
    *dtype = __builtin_ctz(p->dtypes);
  }
  if (*dtype < 0) {
    char want[128];
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: pass '%s': its dtype (%s) does not follow from the other arguments",
                kernel_name(k), p->name, dtype_set_text(dtype_set(k, param), want, sizeof want));
  }
  *ndim = p->ndim;
  for (int i = 0; i < p->ndim; ++i) {
    const int d = p->dims[i];
    if (d >= 0) {
      shape[i] = d;
    } else if (state->dim_from[-1 - d] >= 0) {
      shape[i] = state->dims[-1 - d];
    } else {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: pass '%s': its dimension %s does not follow from the other arguments",
                  kernel_name(k), p->name, k->dims[-1 - d]);
    }
  }
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_kernel_launch(cubridge_kernel_call_state* state,
                                                    cubridge_call* call) {
  const char* fn = "cubridge_kernel_launch";
  clear_error();
  CUBRIDGE_TRY(check_state(fn, state));
  if (call == nullptr)
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'call' is NULL", fn);
  const cubridge_kernel* k = state->kernel;
  const char* name = kernel_name(k);
  bool empty = true, any_host = false, all_host = true;
  for (int p = 0; p < k->nparams; ++p) {
    const cubridge_kernel_param* param = &k->params[p];
    if ((state->given & (1u << p)) == 0) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument '%s' is missing", name, param->name);
    }
    const cubridge_view* v = state->arrays[p];
    if (v == nullptr) continue;
    empty = empty && v->n == 0;
    any_host = any_host || host_memory(v);
    all_host = all_host && host_memory(v);
    if (!writes(param->kind)) continue;
    for (int q = 0; q < k->nparams; ++q) {
      const cubridge_view* w = state->arrays[q];
      if (q != p && w != nullptr && overlap(v, w)) {
        return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                    "%s: arguments '%s' and '%s' overlap in memory, and %s writes '%s': pass "
                    "arrays of their own",
                    name, param->name, k->params[q].name, name, param->name);
      }
    }
  }
  if (empty) return CUBRIDGE_OK;
  if (on_cpu()) return run_entry(state, call, -1, state->arrays);
  if (k->host == CUBRIDGE_HOST_CPU && any_host) {
    if (all_host) return run_entry(state, call, -1, state->arrays);
    for (int p = 0; p < k->nparams; ++p) {
      const cubridge_view* v = state->arrays[p];
      if (v == nullptr || host_memory(v)) continue;
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s: argument '%s' is %s memory but others are host memory: %s runs host arrays "
                  "on the host, so pass all host or all device arrays",
                  name, v->name, cubridge_memory_name(v->memory), name);
    }
  }
  CUBRIDGE_TRY(cuda_ready(name));
  int device = -1;
  CUBRIDGE_TRY(pick_device(state, call, &device));
  return launch_on_device(state, call, device);
}

CUBRIDGE_API cubridge_status cubridge_kernel_call(const cubridge_kernel* kernel,
                                                  cubridge_view* const* arrays,
                                                  const cubridge_scalar* scalars,
                                                  cubridge_stream stream, int flags) {
  const char* fn = "cubridge_kernel_call";
  cubridge_kernel_call_state state;
  state.struct_size = sizeof state;
  CUBRIDGE_TRY(cubridge_kernel_begin(&state, kernel));
  if (arrays == nullptr || scalars == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: arguments 'arrays' and 'scalars' must not be NULL", fn);
  }
  for (int p = 0; p < kernel->nparams; ++p) {
    if (!is_array(kernel->params[p].kind)) {
      CUBRIDGE_TRY(cubridge_kernel_scalar(&state, p, scalars[p]));
    }
  }
  cubridge_call call;
  call.struct_size = sizeof call;
  CUBRIDGE_TRY(cubridge_call_begin(&call, stream, flags));
  cubridge_status status = CUBRIDGE_OK;
  for (int p = 0; p < kernel->nparams && status == CUBRIDGE_OK; ++p) {
    const int kind = kernel->params[p].kind;
    if (!is_array(kind)) continue;
    cubridge_view* v = arrays[p];
    if (v == nullptr) {
      status = fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument '%s' is missing",
                    kernel_name(kernel), kernel->params[p].name);
      break;
    }
    if (v->name == nullptr) v->name = kernel->params[p].name;
    status =
        cubridge_call_add(&call, v, writes(kind) ? CUBRIDGE_ACCESS_WRITE : CUBRIDGE_ACCESS_READ);
    if (status != CUBRIDGE_OK) {
      prefix_error(status, "%s", kernel_name(kernel));
      break;
    }
    status = cubridge_kernel_array(&state, p, v);
  }
  if (status == CUBRIDGE_OK) status = cubridge_kernel_launch(&state, &call);
  if (status != CUBRIDGE_OK) {
    MessageKeeper keep(status);
    (void)cubridge_call_end(&call, CUBRIDGE_ERR_INTERNAL);  // releases only
    return status;
  }
  return cubridge_call_end(&call, status);
}

}  // extern "C"
