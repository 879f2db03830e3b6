// The library's tuning constants in one place: grid shapes, CPU grains, the
// host pipeline's chunking, cache limits. Each says what it was measured on.
#ifndef CUBRIDGE_SRC_TUNING_H_
#define CUBRIDGE_SRC_TUNING_H_

#include <stddef.h>

#include <chrono>

namespace cubridge {

// ---- elementwise ------------------------------------------------------------

// Threads per block of the elementwise kernels. One 16-byte vector per thread
// and one block per 256 vectors: measured on an H100 (bench/micro/shapes.cu)
// this streams at ~3075 GB/s at n = 4e8 against ~2910 for a one-wave
// grid-stride grid with 4 vectors per thread, and is as fast at 1e6 and 1e7.
constexpr int kThreads = 256;

// Launch limit of a 1-D grid (gridDim.x), rounded down.
constexpr size_t kMaxGrid = 1u << 30;

// CPU backend: below this many elements an elementwise op runs on one thread.
constexpr size_t kCpuGrain = 1 << 15;

// How long the CPU pool's threads spin for the next job, and a caller for its
// helpers, before sleeping (cpu_pool.cu). Waking a thread took 5-20 us on the
// 2-core build VM, and back-to-back calls of 1e5 elements take about as long.
constexpr std::chrono::microseconds kPoolSpin{100};

// Host arrays at most this many bytes in total run on CPU threads even on the
// GPU backend (a GPU round trip costs more). Measured on the H200 host (16
// cores), f32 add of 1e6 host arrays (12 MB in all), new result: 0.92 ms
// through the GPU pipeline, 0.23 ms on two CPU threads.
constexpr size_t kHostInlineBytes = size_t(16) << 20;

// ---- pipelined host path (host arrays on the GPU backend) -------------------

constexpr int kSlots = 3;                 // streams in flight per call
constexpr int kSlotBuffers = 3;           // two inputs and one output per slot
constexpr size_t kChunkBytes = 4u << 20;  // bytes per buffer (largest dtype)
// Outputs at least this large get their pages faulted in on a thread of their
// own, beside the transfers (prefault.h); below it a thread costs more.
constexpr size_t kPrefaultMinBytes = 16u << 20;

// ---- reductions ---------------------------------------------------------------

// CPU: elements per partial result, and independent accumulators per block.
constexpr size_t kCpuReduceBlock = 1 << 14;
constexpr int kCpuLanes = 8;
// Reductions shorter than this run their blocks on the calling thread: handing
// a block to a pool thread cost 0.8-1.3 us on the 2-core build VM, more than
// the part of a second block below half a block saves (f64 dot of 16385
// elements: 3.2 us on two threads, 1.9 on one).
constexpr size_t kCpuReduceParallelMin = kCpuReduceBlock + kCpuReduceBlock / 2;

// GPU single-pass sum/dot (reduce_kernel.cuh).
constexpr int kRedThreads = 256;
constexpr int kRedIlp = 4;                // 16-byte vectors in flight per thread
constexpr int kRedBlocksPerSm = 8;        // at most; fewer when registers allow fewer
constexpr unsigned kRedMaxBlocks = 4096;  // partials the scratch block holds
constexpr size_t kRedScratchBytes = 256 + kRedMaxBlocks * 8;  // counter, then partials
// How long the host spins on a reduction's done flag before it falls back to
// cudaStreamSynchronize (reduce.cu wait_done): longer than a small reduction
// takes from launch to result, short enough not to burn a core on long waits.
constexpr std::chrono::microseconds kRedSpin{100};
// Reduction scratch entries (33 KB of device memory and a pinned result slot
// each) kept per device: one per stream that reduces, up to this many; past it
// a new stream takes over the entry used longest ago.
constexpr size_t kRedScratchKept = 64;

// ---- memory -------------------------------------------------------------------

// Alignment of host allocations on the CPU backend (as cudaMalloc's).
constexpr size_t kAlign = 256;

// CPU backend: blocks of 2^9 .. 2^22 bytes are cached for reuse on free
// (host_alloc.h), at most kHostCacheMax bytes in all.
constexpr int kHostCacheMinClassLog2 = 9;
constexpr int kHostCacheMaxClassLog2 = 22;
constexpr size_t kHostCacheMax = size_t(64) << 20;

// Device blocks kept for reuse in front of the CUDA pool (block_cache.h): at
// most kBlockCacheMax bytes per device, blocks of at most kBlockCacheMaxBlock
// bytes, sizes rounded up to kBlockCacheSmallStep (to kBlockCacheSmall bytes)
// or kBlockCacheLargeStep (above): a cached block then fits every request of
// its class, and rounding wastes at most 512 bytes or 6%.
constexpr size_t kBlockCacheMax = size_t(256) << 20;
constexpr size_t kBlockCacheMaxBlock = size_t(32) << 20;
constexpr size_t kBlockCacheSmall = size_t(1) << 20;
constexpr size_t kBlockCacheSmallStep = 512;
constexpr size_t kBlockCacheLargeStep = size_t(64) << 10;

// Cached, unused pinned bytes the pinned-host cache keeps at most.
constexpr size_t kPinnedCacheMax = size_t(1) << 30;

// Blocks of arrays last used on another library's stream, kept behind their
// event for the next array of their size (array_cache.h): at most this many,
// of at most kArrayCacheMaxBlock bytes each (what the block cache keeps too).
// On the H200 a new result on a torch stream then cost 7.4-7.8 us instead of
// 8.6-9.1 (docs/python.md).
constexpr int kArrayCacheBlocks = 8;
constexpr size_t kArrayCacheMaxBlock = size_t(32) << 20;
// Spare CUDA events kept for new arrays (cudaEventCreate: about 1 us).
constexpr size_t kSpareEvents = 64;

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_TUNING_H_
