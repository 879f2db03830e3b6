package cubridge

// #include "cubridge/cubridge.h"
import "C"

// MemoryStats describes the library's device memory pool of one device: the
// buffers allocated through it (NewDevice) and what the pool holds from the
// driver. On the CPU backend every allocation counts on device 0.
type MemoryStats struct {
	InUseBytes     uint64 // allocated and not yet freed
	ReservedBytes  uint64 // held by the pool: in use plus cached for reuse
	PeakInUseBytes uint64
	AllocCount     uint64 // allocations since the process started
	FreeCount      uint64
	CachedBytes    uint64 // freed blocks kept for their next allocation (part of ReservedBytes)
	ScratchBytes   uint64 // the library's own: host-slice staging, reduction scratch (EmptyCache returns idle staging)
}

// ReadMemoryStats returns the pool statistics of CUDA device d (-1: the C
// library's current device).
func ReadMemoryStats(d int) (MemoryStats, error) {
	var st C.cubridge_memory_stats
	st.struct_size = C.size_t(C.sizeof_cubridge_memory_stats)
	err := check("memory_stats", func() C.cubridge_status { return C.cubridge_memory_stats_get(C.int(d), &st) })
	return MemoryStats{
		InUseBytes:     uint64(st.in_use_bytes),
		ReservedBytes:  uint64(st.reserved_bytes),
		PeakInUseBytes: uint64(st.peak_in_use_bytes),
		AllocCount:     uint64(st.alloc_count),
		FreeCount:      uint64(st.free_count),
		CachedBytes:    uint64(st.cached_bytes),
		ScratchBytes:   uint64(st.scratch_bytes),
	}, err
}

// EmptyCache returns the cached, unused pool memory of CUDA device d (-1:
// every device) to the driver, after the device's queued work; cached pinned
// memory too. It does nothing on the CPU backend.
func EmptyCache(d int) error {
	return check("empty_cache", func() C.cubridge_status { return C.cubridge_empty_cache(C.int(d)) })
}

// MemInfoOn returns the free and total memory of CUDA device d, in bytes (on
// the CPU backend, device 0: the host's physical memory).
func MemInfoOn(d int) (free, total uint64, err error) {
	var f, t C.size_t
	err = check("device_mem_info", func() C.cubridge_status { return C.cubridge_device_mem_info(C.int(d), &f, &t) })
	return uint64(f), uint64(t), err
}

// Shutdown releases every cache the library keeps, on every device: the
// pools' cached blocks, the staging buffers and streams of host-slice
// operations, the reductions' scratch, spare events. It waits for each
// device's work first. Afterwards no memory the library allocated for itself
// is left (a leak checker at exit sees only what is still in use), and the
// package works on: the caches grow again. Call it when no other goroutine
// uses the package, at the end of a program or a test run (TestMain).
func Shutdown() error {
	return check("shutdown", func() C.cubridge_status { return C.cubridge_shutdown() })
}
