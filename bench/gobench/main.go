// Command gobench measures cubridge's Go path on the machine it runs on and
// prints a table, then the same results as JSON.
//
//   - small add on device buffers (n=1000): thousands of async AddBuffer calls
//     on the default stream, one Synchronize at the end; time per call.
//     Also SumBuffer at n=1000 (the result comes back to Go each call).
//   - bandwidth of AddBuffer, AxpyBuffer, SumBuffer on device buffers, timed
//     with cubridge Events on the default stream: one event pair per call, each
//     call preceded by a 256 MiB FillBuffer so that the GPU is still busy while
//     Go enqueues (start, op, end) and the events bracket GPU work only.
//     Median and min of the calls. Effective bytes: add/axpy 3*n*size, sum n*size.
//   - the host-slice path: Add(dst, a, b) on Go []float32 (copied through the GPU
//     by the library, or CPU threads on the CPU backend); wall time per call.
//
// Usage:
//
//	gobench [-quick] [-out gobench.json] [-reps 30]
//	CUBRIDGE_BACKEND=cpu gobench -quick
//
// Failures of one measurement are reported in its row and the run goes on.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/cubridge/cubridge/go/cubridge"
)

// Result is one measurement.
type Result struct {
	Kind     string  `json:"kind"` // "small", "bandwidth", "host"
	Op       string  `json:"op"`
	DType    string  `json:"dtype"`
	N        int     `json:"n"`
	Reps     int     `json:"reps,omitempty"`
	Calls    int     `json:"calls_per_round,omitempty"`
	MedianUs float64 `json:"median_us,omitempty"`
	MinUs    float64 `json:"min_us,omitempty"`
	GBps     float64 `json:"gbps,omitempty"`
	GBpsBest float64 `json:"gbps_best,omitempty"`
	Timer    string  `json:"timer,omitempty"`
	Note     string  `json:"note,omitempty"`
	Error    string  `json:"error,omitempty"`
	Skipped  string  `json:"skipped,omitempty"`
}

// Target is one line of the targets section.
type Target struct {
	Target string  `json:"target"`
	Goal   float64 `json:"goal"`
	Value  float64 `json:"value,omitempty"`
	Status string  `json:"status"`
	Detail string  `json:"detail"`
}

// Report is the JSON document.
type Report struct {
	Date     string   `json:"date"`
	Backend  string   `json:"backend"`
	Device   string   `json:"device"`
	Version  string   `json:"cubridge_version"`
	Go       string   `json:"go_version"`
	GOOS     string   `json:"goos"`
	CPUs     int      `json:"cpus"`
	Args     []string `json:"args"`
	Results  []Result `json:"results"`
	Targets  []Target `json:"targets"`
	Notes    []string `json:"notes,omitempty"`
	TotalSec float64  `json:"total_seconds"`
}

var (
	quick  = flag.Bool("quick", false, "few sizes and repetitions (smoke run)")
	out    = flag.String("out", "", "also write the JSON to this file")
	reps   = flag.Int("reps", 30, "timed calls per bandwidth measurement (at least 20)")
	maxGB  = flag.Float64("max-gb", 36, "skip sizes whose buffers need more than this many GiB")
	noJSON = flag.Bool("no-json", false, "do not print the JSON after the table")
)

const busyBytes = 256 << 20

type bench struct {
	onGPU   bool
	results []Result
	notes   []string
	busy    *cubridge.Buffer[float32]
}

func main() {
	flag.Parse()
	if *reps < 20 {
		*reps = 20
	}
	start := time.Now()
	maj, mnr, pat := cubridge.Version()
	rep := Report{
		Date:    time.Now().UTC().Format(time.RFC3339),
		Version: fmt.Sprintf("%d.%d.%d", maj, mnr, pat),
		Go:      runtime.Version(),
		GOOS:    runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:    runtime.NumCPU(),
		Args:    os.Args[1:],
	}
	b := &bench{}
	backend, err := cubridge.Backend()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gobench: backend: %v\n", err)
		os.Exit(1)
	}
	rep.Backend = backend.String()
	b.onGPU = backend == cubridge.BackendCUDA
	rep.Device = "CPU backend"
	if devs, err := cubridge.Devices(); err == nil && len(devs) > 0 {
		rep.Device = devs[0].Name
	}
	logf("gobench: cubridge %s, backend %s, device %s", rep.Version, rep.Backend, rep.Device)

	b.small()
	b.bandwidth()
	b.host()

	rep.Results = b.results
	rep.Targets = b.targets()
	rep.Notes = b.notes
	rep.TotalSec = time.Since(start).Seconds()
	printTable(&rep)
	doc, err := json.MarshalIndent(&rep, "", " ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "gobench: json: %v\n", err)
		os.Exit(1)
	}
	if !*noJSON {
		fmt.Println(string(doc))
	}
	if *out != "" {
		if err := os.WriteFile(*out, append(doc, '\n'), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "gobench: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", *out)
	}
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func fmtN(n int) string {
	e := math.Log10(float64(n))
	if e == math.Trunc(e) {
		return fmt.Sprintf("1e%d", int(e))
	}
	m := float64(n) / math.Pow(10, math.Floor(e))
	return fmt.Sprintf("%ge%d", m, int(math.Floor(e)))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func dtypeName[T cubridge.Float]() string { return cubridge.DTypeOf[T]().String() }

func sizeOf[T cubridge.Float]() int { var z T; return int(unsafe.Sizeof(z)) }

// filled returns a device buffer of n elements set to v.
func filled[T cubridge.Float](n int, v T) (*cubridge.Buffer[T], error) {
	buf, err := cubridge.NewDevice[T](n)
	if err != nil {
		return nil, err
	}
	if err := cubridge.FillBuffer(buf, v, nil); err != nil {
		buf.Free()
		return nil, err
	}
	return buf, nil
}

func freeAll[T cubridge.Float](bufs ...*cubridge.Buffer[T]) {
	for _, x := range bufs {
		if x != nil {
			x.Free()
		}
	}
}

// ---- small calls --------------------------------------------------------------

func (b *bench) small() {
	smallT[float32](b)
	if !*quick {
		smallT[float64](b)
	}
}

func smallT[T cubridge.Float](b *bench) {
	const n = 1000
	dt := dtypeName[T]()
	bufs := make([]*cubridge.Buffer[T], 3)
	for i := range bufs {
		var err error
		if bufs[i], err = filled[T](n, T(i+1)); err != nil {
			b.results = append(b.results, Result{Kind: "small", Op: "add", DType: dt, N: n, Error: err.Error()})
			freeAll(bufs...)
			return
		}
	}
	defer freeAll(bufs...)
	rounds, calls := 5, 20000
	if *quick {
		rounds, calls = 3, 5000
	}
	// Async adds, one Synchronize per round.
	r := Result{Kind: "small", Op: "add", DType: dt, N: n, Calls: calls, Reps: rounds,
		Note: "AddBuffer on the default stream, async; one Synchronize per round"}
	per, err := loop(rounds, calls, func() error { return cubridge.AddBuffer(bufs[2], bufs[0], bufs[1], nil) }, cubridge.Synchronize)
	b.record(r, per, err)
	if b.onGPU {
		smallGraph(b, bufs, rounds, calls)
	}
	// Sums: each call waits for its result.
	r = Result{Kind: "small", Op: "sum", DType: dt, N: n, Calls: calls / 4, Reps: rounds,
		Note: "SumBuffer: each call returns the float64 to Go"}
	per, err = loop(rounds, calls/4, func() error { _, err := cubridge.SumBuffer(bufs[0], nil); return err }, cubridge.Synchronize)
	b.record(r, per, err)
}

// graphBatch is how many adds one recorded graph holds.
const graphBatch = 64

// smallGraph times the same small adds recorded in a Graph of graphBatch adds
// and replayed (Stream.Capture, Graph.Launch): per add.
func smallGraph[T cubridge.Float](b *bench, bufs []*cubridge.Buffer[T], rounds, calls int) {
	dt := dtypeName[T]()
	r := Result{Kind: "small", Op: "add (graph)", DType: dt, N: bufs[0].Len(), Calls: calls, Reps: rounds,
		Note: fmt.Sprintf("AddBuffer x %d recorded once (Stream.Capture), replayed with Graph.Launch; per add", graphBatch)}
	s, err := cubridge.NewStream()
	if err != nil {
		b.record(r, nil, err)
		return
	}
	defer s.Close()
	g, err := s.Capture(func() error {
		for i := 0; i < graphBatch; i++ {
			if err := cubridge.AddBuffer(bufs[2], bufs[0], bufs[1], s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.record(r, nil, err)
		return
	}
	defer g.Close()
	per, err := loop(rounds, calls/graphBatch, func() error { return g.Launch(s) }, s.Synchronize)
	for i := range per {
		per[i] /= graphBatch
	}
	b.record(r, per, err)
}

// loop times rounds of k calls of f (then sync), seconds per call for each round.
func loop(rounds, k int, f func() error, sync func() error) ([]float64, error) {
	for i := 0; i < 100; i++ { // warm-up
		if err := f(); err != nil {
			return nil, err
		}
	}
	if err := sync(); err != nil {
		return nil, err
	}
	per := make([]float64, 0, rounds)
	for r := 0; r < rounds; r++ {
		t0 := time.Now()
		for i := 0; i < k; i++ {
			if err := f(); err != nil {
				return nil, err
			}
		}
		if err := sync(); err != nil {
			return nil, err
		}
		per = append(per, time.Since(t0).Seconds()/float64(k))
	}
	return per, nil
}

func (b *bench) record(r Result, perSec []float64, err error) {
	if err != nil {
		r.Error = err.Error()
		logf("  %s %s %s n=%s: ERROR %v", r.Kind, r.Op, r.DType, fmtN(r.N), err)
	} else {
		r.MedianUs = median(perSec) * 1e6
		r.MinUs = slices.Min(perSec) * 1e6
		logf("  %-9s %-4s %-7s n=%-5s %10.2f us", r.Kind, r.Op, r.DType, fmtN(r.N), r.MedianUs)
	}
	b.results = append(b.results, r)
}

// ---- bandwidth ------------------------------------------------------------------

func (b *bench) bandwidth() {
	if b.onGPU {
		var err error
		if b.busy, err = cubridge.NewDevice[float32](busyBytes / 4); err != nil {
			b.notes = append(b.notes, "no busy buffer: events include the enqueue time: "+err.Error())
			b.busy = nil
		}
		defer func() {
			if b.busy != nil {
				b.busy.Free()
			}
		}()
	}
	bandwidthT[float32](b)
	bandwidthT[float64](b)
}

func bandwidthT[T cubridge.Float](b *bench) {
	sizes := []int{1e6, 1e7, 1e8, 4e8}
	if *quick {
		sizes = []int{1e6, 1e7}
	}
	dt := dtypeName[T]()
	size := sizeOf[T]()
	for _, n := range sizes {
		need := 3 * n * size
		skip := ""
		if float64(need) > *maxGB*(1<<30) {
			skip = fmt.Sprintf("needs %.1f GiB > -max-gb", float64(need)/(1<<30))
		} else if free, _, err := cubridge.MemInfo(); err == nil && b.onGPU && uint64(need)+(1<<30) > free {
			skip = fmt.Sprintf("needs %.1f GiB + 1 GiB, %.1f GiB free", float64(need)/(1<<30), float64(free)/(1<<30))
		}
		if skip != "" {
			for _, op := range []string{"add", "axpy", "sum"} {
				b.results = append(b.results, Result{Kind: "bandwidth", Op: op, DType: dt, N: n, Skipped: skip})
			}
			logf("  skip %s n=%s: %s", dt, fmtN(n), skip)
			continue
		}
		x, err1 := filled[T](n, 1)
		y, err2 := filled[T](n, 2)
		z, err3 := filled[T](n, 0.25)
		if err := errors.Join(err1, err2, err3); err != nil {
			for _, op := range []string{"add", "axpy", "sum"} {
				b.results = append(b.results, Result{Kind: "bandwidth", Op: op, DType: dt, N: n, Error: err.Error()})
			}
			freeAll(x, y, z)
			continue
		}
		ops := []struct {
			name  string
			bytes int
			f     func() error
		}{
			{"add", 3 * n * size, func() error { return cubridge.AddBuffer(z, x, y, nil) }},
			{"axpy", 3 * n * size, func() error { return cubridge.AxpyBuffer(T(1e-3), x, z, nil) }},
			{"sum", n * size, func() error { _, err := cubridge.SumBuffer(x, nil); return err }},
		}
		for _, op := range ops {
			r := Result{Kind: "bandwidth", Op: op.name, DType: dt, N: n, Timer: "cubridge events"}
			if op.name == "sum" {
				r.Note = "blocking call: includes the result's trip to the host"
			}
			nrep := *reps
			if n >= 1e8 {
				nrep = max(20, *reps*2/3)
			}
			if !b.onGPU {
				nrep = max(5, min(nrep, 10))
			}
			ms, err := b.timeEvents(op.f, nrep)
			if err != nil {
				r.Error = err.Error()
				logf("  bandwidth %s %s n=%s: ERROR %v", op.name, dt, fmtN(n), err)
			} else {
				med, mn := median(ms), slices.Min(ms)
				r.Reps = len(ms)
				r.MedianUs, r.MinUs = med*1e3, mn*1e3
				r.GBps = float64(op.bytes) / (med * 1e-3) / 1e9
				r.GBpsBest = float64(op.bytes) / (mn * 1e-3) / 1e9
				logf("  bandwidth %-4s %-7s n=%-5s %10.1f us %8.1f GB/s", op.name, dt, fmtN(n), r.MedianUs, r.GBps)
			}
			b.results = append(b.results, r)
		}
		freeAll(x, y, z)
	}
}

// timeEvents returns the milliseconds of each of nrep calls between events.
func (b *bench) timeEvents(f func() error, nrep int) ([]float64, error) {
	for i := 0; i < 3; i++ {
		if err := f(); err != nil {
			return nil, err
		}
	}
	if err := cubridge.Synchronize(); err != nil {
		return nil, err
	}
	starts := make([]*cubridge.Event, nrep)
	ends := make([]*cubridge.Event, nrep)
	defer func() {
		for i := range starts {
			starts[i].Close()
			ends[i].Close()
		}
	}()
	for i := range starts {
		var err error
		if starts[i], err = cubridge.NewEvent(); err != nil {
			return nil, err
		}
		if ends[i], err = cubridge.NewEvent(); err != nil {
			return nil, err
		}
	}
	for i := 0; i < nrep; i++ {
		if b.busy != nil {
			if err := cubridge.FillBuffer(b.busy, 1, nil); err != nil {
				return nil, err
			}
		}
		if err := starts[i].Record(nil); err != nil {
			return nil, err
		}
		if err := f(); err != nil {
			return nil, err
		}
		if err := ends[i].Record(nil); err != nil {
			return nil, err
		}
	}
	if err := ends[nrep-1].Synchronize(); err != nil {
		return nil, err
	}
	if err := cubridge.Synchronize(); err != nil {
		return nil, err
	}
	ms := make([]float64, nrep)
	for i := range ms {
		d, err := cubridge.Elapsed(starts[i], ends[i])
		if err != nil {
			return nil, err
		}
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	return ms, nil
}

// ---- host slices ----------------------------------------------------------------

func (b *bench) host() {
	sizes := []int{1e3, 1e6, 1e7, 1e8}
	if *quick {
		sizes = []int{1e3, 1e6, 1e7}
	}
	for _, n := range sizes {
		r := Result{Kind: "host", Op: "add", DType: "float32", N: n, Note: "cubridge.Add(dst, a, b) on []float32"}
		a, c, d := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], c[i] = 1, 2
		}
		f := func() error { return cubridge.Add(d, a, c) }
		var per []float64
		var err error
		if n < 1e5 {
			per, err = loop(5, 5000, f, func() error { return nil })
			r.Calls = 5000
		} else {
			per, err = timeWall(f, *quick)
		}
		if err == nil && (d[0] != 3 || d[n-1] != 3) {
			r.Note += "; WRONG RESULT"
		}
		r.Reps = len(per)
		b.record(r, per, err)
	}
}

// timeWall times single calls: at least 5, about 2 s in all (0.5 s with -quick).
func timeWall(f func() error, quick bool) ([]float64, error) {
	t0 := time.Now()
	if err := f(); err != nil {
		return nil, err
	}
	one := time.Since(t0).Seconds()
	budget := 2.0
	if quick {
		budget = 0.5
	}
	n := max(5, min(50, int(budget/math.Max(one, 1e-6))))
	per := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		per = append(per, time.Since(t0).Seconds())
	}
	return per, nil
}

// ---- targets and the table --------------------------------------------------------

func (b *bench) find(kind, op, dt string, n int) *Result {
	for i := range b.results {
		r := &b.results[i]
		if r.Kind == kind && r.Op == op && r.DType == dt && r.N == n {
			return r
		}
	}
	return nil
}

func (b *bench) targets() []Target {
	var ts []Target
	add := func(name string, r *Result, goal float64, unit string, val func(*Result) float64, higher bool) {
		t := Target{Target: name, Goal: goal}
		switch {
		case r == nil:
			t.Status, t.Detail = "not measured", "no measurement"
		case r.Error != "" || r.Skipped != "":
			t.Status, t.Detail = "not measured", r.Error+r.Skipped
		default:
			v := val(r)
			t.Value = v
			met := v <= goal
			if higher {
				met = v >= goal
			}
			if met {
				t.Status, t.Detail = "met", fmt.Sprintf("%.4g %s", v, unit)
			} else {
				gap := math.Abs(v - goal)
				t.Status, t.Detail = "missed", fmt.Sprintf("%.4g %s: missed by %.3g %s (%.1f%%)", v, unit, gap, unit, gap/goal*100)
			}
		}
		ts = append(ts, t)
	}
	us := func(r *Result) float64 { return r.MedianUs }
	gbps := func(r *Result) float64 { return r.GBps }
	if !b.onGPU {
		if r := b.find("host", "add", "float32", 1e7); r != nil && r.Error == "" {
			ts = append(ts, Target{Target: "CPU backend: host slices float32 add n=1e7 (the 1.5x-NumPy target is checked by bench.py)",
				Value: r.MedianUs, Status: "info", Detail: fmtTime(r.MedianUs)})
		}
		return ts
	}
	for _, dt := range []string{"float32", "float64"} {
		add("Go small async add "+dt+" n=1000 <= 3 us per call", b.find("small", "add", dt, 1000), 3, "us", us, false)
		add(fmt.Sprintf("Go small add %s n=1000 in a graph of %d <= 3 us per add", dt, graphBatch),
			b.find("small", "add (graph)", dt, 1000), 3, "us", us, false)
	}
	for _, op := range []string{"add", "axpy"} {
		for _, dt := range []string{"float32", "float64"} {
			add(fmt.Sprintf("Go %s %s n=4e8 >= 3050 GB/s", op, dt), b.find("bandwidth", op, dt, 4e8), 3050, "GB/s", gbps, true)
		}
	}
	for _, dt := range []string{"float32", "float64"} {
		add(fmt.Sprintf("Go sum %s n=4e8 >= 3090 GB/s", dt), b.find("bandwidth", "sum", dt, 4e8), 3090, "GB/s", gbps, true)
	}
	add("Go host slices float32 add n=1e8 <= 90 ms", b.find("host", "add", "float32", 1e8), 90000, "us", us, false)
	return ts
}

func printTable(rep *Report) {
	fmt.Printf("gobench  %s  cubridge %s  backend %s  device %s  %s\n\n", rep.Date, rep.Version, rep.Backend, rep.Device, rep.Go)
	fmt.Printf("%-10s %-5s %-8s %6s %14s %14s %10s  %s\n", "kind", "op", "dtype", "n", "median", "min", "GB/s", "note")
	for _, r := range rep.Results {
		med, mn, bw := "", "", ""
		switch {
		case r.Error != "":
			med = "ERROR"
		case r.Skipped != "":
			med = "skipped"
		default:
			med, mn = fmtTime(r.MedianUs), fmtTime(r.MinUs)
			if r.GBps > 0 {
				bw = fmt.Sprintf("%.1f", r.GBps)
			}
		}
		note := r.Note
		if r.Error != "" {
			note = r.Error
		} else if r.Skipped != "" {
			note = r.Skipped
		}
		fmt.Printf("%-10s %-5s %-8s %6s %14s %14s %10s  %s\n", r.Kind, r.Op, r.DType, fmtN(r.N), med, mn, bw, note)
	}
	fmt.Println("\ntargets")
	for _, t := range rep.Targets {
		fmt.Printf("  [%-12s] %s: %s\n", t.Status, t.Target, t.Detail)
	}
	for _, n := range rep.Notes {
		fmt.Println("note:", n)
	}
	fmt.Printf("total %.1f s\n\n", rep.TotalSec)
}

func fmtTime(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.3f s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.3f ms", us/1e3)
	default:
		return fmt.Sprintf("%.2f us", us)
	}
}
