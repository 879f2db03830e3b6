// CUDA graphs: the work a caller enqueues on a stream, recorded once and then
// replayed for the cost of one launch (issue 15: small ops from Go cost a
// launch each; a recorded batch costs one). Needs the CUDA backend.
#include <new>

#include "backend.h"
#include "devices.h"
#include "held_frees.h"
#include "status.h"
#include "streams.h"

struct cubridge_graph_s {
#if !defined(CUBRIDGE_NO_CUDA)
  cudaGraphExec_t exec;
#endif
  int device;
};

using namespace cubridge;

namespace {

// The checks every graph entry point shares: the CUDA backend, and a stream
// of our own (the default stream cannot be recorded).
cubridge_status check_capture_stream(const char* fn, cubridge_stream stream) {
  if (on_cpu()) {
    return fail(CUBRIDGE_ERR_NO_DEVICE,
                "%s: graphs need the CUDA backend (this process runs the CPU backend)", fn);
  }
  CUBRIDGE_TRY(cuda_ready(fn));
  if (stream == nullptr || stream->stream == nullptr || stream->stream == cudaStreamLegacy ||
      stream->stream == cudaStreamPerThread) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'stream' must be a created stream (the default stream cannot "
                "be recorded)",
                fn);
  }
  return CUBRIDGE_OK;
}

}  // namespace

extern "C" {

CUBRIDGE_API cubridge_status cubridge_stream_begin_capture(cubridge_stream stream) {
  const char* fn = "cubridge_stream_begin_capture";
  clear_error();
  CUBRIDGE_TRY(check_capture_stream(fn, stream));
#if defined(CUBRIDGE_NO_CUDA)
  return fail(CUBRIDGE_ERR_NO_DEVICE, "%s: built without CUDA", fn);
#else
  // Relaxed: other threads may still allocate and query while this stream
  // records; work on the legacy default stream (which this blocking stream
  // is ordered with) still ends the recording (cubridge.h). Counted first: a
  // runtime array freed from here on waits for the recording's end.
  capture_begins(stream->stream);
  cudaError_t err = cudaStreamBeginCapture(stream->stream, cudaStreamCaptureModeRelaxed);
  if (err != cudaSuccess) {
    capture_ends(stream->stream);
    return fail_cuda(err, fn, "cudaStreamBeginCapture");
  }
  return CUBRIDGE_OK;
#endif
}

CUBRIDGE_API cubridge_status cubridge_stream_end_capture(cubridge_stream stream,
                                                         cubridge_graph* graph) {
  const char* fn = "cubridge_stream_end_capture";
  clear_error();
  if (graph == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'graph' is NULL", fn);
  }
  *graph = nullptr;
  CUBRIDGE_TRY(check_capture_stream(fn, stream));
#if defined(CUBRIDGE_NO_CUDA)
  return fail(CUBRIDGE_ERR_NO_DEVICE, "%s: built without CUDA", fn);
#else
  cudaGraph_t g = nullptr;
  // Ends the recording even when it failed (an op that synchronises, say):
  // the stream is usable again either way.
  bool recording = false;
  if (stream_recording(stream, &recording) != cudaSuccess || !recording) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'stream' is not recording a graph",
                fn);
  }
  cudaError_t err = cudaStreamEndCapture(stream->stream, &g);
  // The message, then the runtime arrays freed meanwhile (the last recording
  // to end frees them; a free is a library call but leaves the message).
  capture_ends(stream->stream);
  clear_error();
  if (err != cudaSuccess) {
    if (g) cudaGraphDestroy(g);
    return fail_cuda(err, fn,
                     "cudaStreamEndCapture (a call during the recording needed the host or "
                     "the default stream: only asynchronous ops on this stream can be recorded)");
  }
  cudaGraphExec_t exec = nullptr;
  err = cudaGraphInstantiate(&exec, g, 0);
  cudaGraphDestroy(g);  // the executable graph keeps what it needs
  if (err != cudaSuccess) return fail_cuda(err, fn, "cudaGraphInstantiate");
  int device = stream->device;
  if (device < 0) CUBRIDGE_CUDA(fn, cudaGetDevice(&device));
  auto* w = new (std::nothrow) cubridge_graph_s{exec, device};
  if (!w) {
    cudaGraphExecDestroy(exec);
    return fail(CUBRIDGE_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  *graph = w;
  return CUBRIDGE_OK;
#endif
}

CUBRIDGE_API cubridge_status cubridge_stream_is_capturing(cubridge_stream stream, int* capturing) {
  const char* fn = "cubridge_stream_is_capturing";
  clear_error();
  if (capturing == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'capturing' is NULL", fn);
  }
  bool recording = false;
  CUBRIDGE_CUDA(fn, stream_recording(stream, &recording));
  *capturing = recording ? 1 : 0;
  return CUBRIDGE_OK;
}

CUBRIDGE_API cubridge_status cubridge_graph_launch(cubridge_graph graph, cubridge_stream stream) {
  const char* fn = "cubridge_graph_launch";
  clear_error();
  if (graph == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'graph' is NULL", fn);
  }
#if defined(CUBRIDGE_NO_CUDA)
  (void)stream;
  return fail(CUBRIDGE_ERR_NO_DEVICE, "%s: built without CUDA", fn);
#else
  CUBRIDGE_TRY(cuda_ready(fn));
  if (stream && stream->device >= 0 && stream->device != graph->device) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "%s: argument 'stream' is on device %d but the graph was recorded on device %d", fn,
                stream->device, graph->device);
  }
  DeviceGuard guard;
  CUBRIDGE_TRY(guard.enter(fn, graph->device));
  cudaError_t err = cudaGraphLaunch(graph->exec, raw_stream(stream));
  if (err != cudaSuccess) return fail_cuda(err, fn, "cudaGraphLaunch");
  return CUBRIDGE_OK;
#endif
}

CUBRIDGE_API cubridge_status cubridge_graph_destroy(cubridge_graph graph) {
  clear_error();
  if (graph == nullptr) return CUBRIDGE_OK;
#if !defined(CUBRIDGE_NO_CUDA)
  cudaError_t err = cudaGraphExecDestroy(graph->exec);
  delete graph;
  if (err != cudaSuccess) return fail_cuda(err, "cubridge_graph_destroy", "cudaGraphExecDestroy");
#else
  delete graph;
#endif
  return CUBRIDGE_OK;
}

}  // extern "C"
