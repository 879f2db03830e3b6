// Command ncclbench measures all_reduce bus bandwidth from Go: one
// communicator per local GPU (cubridge.NewLocalComms), one goroutine per GPU,
// in-place float32 sum on a stream of each device, 8 KiB to 1 GiB.
//
// As nccl-tests: 5 warm-up calls, then iters calls back to back and one
// synchronize of every stream; time per call = wall time / iters; algbw =
// bytes / time; busbw = algbw * 2 (n-1) / n. One JSON object per size on
// stdout (bench/nccl_bench.py reads them), a table on stderr.
//
// Usage:
//
//	ncclbench [-devices N] [-quick]
//
// NCCL is loaded at run time: set CUBRIDGE_NCCL_LIBRARY to libnccl.so.2 (for
// example torch's site-packages/nvidia/nccl/lib/libnccl.so.2) if it is not
// on the loader's path.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cubridge/cubridge/go/cubridge"
)

// Row is one size's result (the same fields as bench/nccl_bench.py's rows).
type Row struct {
	Impl     string  `json:"impl"`
	NRanks   int     `json:"nranks"`
	Bytes    int     `json:"bytes"`
	Iters    int     `json:"iters"`
	TimeUs   float64 `json:"time_us"`
	AlgBWGBs float64 `json:"algbw_gbps"`
	BusBWGBs float64 `json:"busbw_gbps"`
}

func sizes(quick bool) []int {
	top, step := 1<<30, 2
	if quick {
		top, step = 64<<20, 4
	}
	var out []int
	for s := 8 << 10; s <= top; s *= step {
		out = append(out, s)
	}
	return out
}

func itersFor(bytes int, quick bool) int {
	base := 50
	if quick {
		base = 20
	}
	return max(5, min(1000, base*(64<<20)/max(bytes, 1)/8+5))
}

// rank is one device's part: its comm, stream and buffers of every size.
type rank struct {
	comm   *cubridge.Comm
	stream *cubridge.Stream
	buf    *cubridge.Buffer[float32]
}

func run(ranks []*rank, iters int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, len(ranks))
	start := time.Now()
	for i, r := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < iters && errs[i] == nil; k++ {
				errs[i] = cubridge.AllReduce(r.comm, r.buf, r.buf, cubridge.ReduceSum, r.stream)
			}
			if errs[i] == nil {
				errs[i] = r.stream.Synchronize()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return elapsed, nil
}

func main() {
	devices := flag.Int("devices", 0, "GPUs to use (default: all)")
	quick := flag.Bool("quick", false, "fewer sizes and calls")
	flag.Parse()
	if err := bench(*devices, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "ncclbench:", err)
		os.Exit(1)
	}
}

func bench(ndev int, quick bool) error {
	if ndev == 0 {
		devs, err := cubridge.Devices()
		if err != nil {
			return err
		}
		ndev = len(devs)
	}
	ids := make([]int, ndev)
	for i := range ids {
		ids[i] = i
	}
	comms, err := cubridge.NewLocalComms(ids...)
	if err != nil {
		return err
	}
	ranks := make([]*rank, ndev)
	for i, c := range comms {
		s, err := cubridge.NewStreamOn(c.Device())
		if err != nil {
			return err
		}
		ranks[i] = &rank{comm: c, stream: s}
	}
	defer func() {
		for _, r := range ranks {
			r.buf.Free()
			r.stream.Close()
			r.comm.Close()
		}
	}()
	v, _ := cubridge.NCCLVersion()
	fmt.Fprintf(os.Stderr, "ncclbench: %d GPU(s), NCCL %d\n", ndev, v)
	enc := json.NewEncoder(os.Stdout)
	for _, size := range sizes(quick) {
		for _, r := range ranks {
			r.buf.Free()
			if r.buf, err = cubridge.NewDevice[float32](size/4, cubridge.OnDevice(r.comm.Device())); err != nil {
				return err
			}
			if err = cubridge.FillBuffer(r.buf, 1, r.stream); err != nil {
				return err
			}
		}
		if _, err := run(ranks, 5); err != nil {
			return err
		}
		iters := itersFor(size, quick)
		elapsed, err := run(ranks, iters)
		if err != nil {
			return err
		}
		t := elapsed.Seconds() / float64(iters)
		alg := float64(size) / t / 1e9
		row := Row{Impl: "go", NRanks: ndev, Bytes: size, Iters: iters, TimeUs: t * 1e6,
			AlgBWGBs: alg, BusBWGBs: alg * 2 * float64(ndev-1) / float64(ndev)}
		if err := enc.Encode(row); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%11d B %10.1f us  busbw %7.2f  algbw %7.2f GB/s\n", size, row.TimeUs, row.BusBWGBs, row.AlgBWGBs)
	}
	return nil
}
