package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// report is analyze's answer: the text, and the count that -require-remote
// checks.
type report struct {
	text      string
	notRemote int
}

// executed: its command ran (here or remotely), as opposed to a cache hit.
func executed(s *spawnExec) bool { return !s.cached() }

// remoteCost is what a remote spawn costs on the critical path with enough
// workers: Bazel's whole time for it less the time it queued for a worker.
// For a local spawn it is its run time.
func remoteCost(s *spawnExec) time.Duration {
	if !executed(s) {
		return 0
	}
	if !s.remote() {
		return s.runTime()
	}
	d := time.Duration(s.Metrics.TotalTime) - time.Duration(s.Metrics.QueueTime)
	if d < s.runTime() {
		d = s.runTime()
	}
	return d
}

func runCost(s *spawnExec) time.Duration {
	if !executed(s) {
		return 0
	}
	return s.runTime()
}

func analyze(spawns []spawnExec, runs map[string]ran, counts []int, top int) (report, error) {
	var b strings.Builder
	var r report
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	runners := map[string]int{}
	var remote, hits, executedN int
	var work, cost, queued time.Duration
	var inBytes, outBytes int64
	distinct := map[string]int64{}
	for i := range spawns {
		s := &spawns[i]
		name := s.Runner
		if s.CacheHit && !strings.Contains(name, "cache hit") {
			name += " (cache hit)"
		}
		runners[name]++
		switch {
		case s.remote():
			remote++
		case s.cached() && strings.Contains(s.Runner, "remote"):
			hits++
		default:
			r.notRemote++
		}
		if !executed(s) {
			continue
		}
		executedN++
		work += runCost(s)
		cost += remoteCost(s)
		queued += time.Duration(s.Metrics.QueueTime)
		for _, in := range s.Inputs {
			inBytes += in.Digest.SizeBytes
			distinct[in.Digest.Hash] = in.Digest.SizeBytes
		}
		for _, o := range s.ActualOutputs {
			outBytes += o.Digest.SizeBytes
		}
	}
	var distinctBytes int64
	for _, n := range distinct {
		distinctBytes += n
	}

	p("spawns: %d (executed remotely %d, remote cache hits %d, other %d)\n", len(spawns), remote, hits, r.notRemote)
	for _, name := range sortedKeys(runners) {
		p("  runner %-28q %d\n", name, runners[name])
	}
	notRemoteReport(p, spawns)
	p("executed: %d spawns; their commands ran %s in all; Bazel's time for them less queueing %s (queued %s)\n",
		executedN, secs(work), secs(cost), secs(queued))
	p("input bytes: %s summed over the executed spawns (a worker with no cache fetches them all), %s distinct (%d blobs); output bytes: %s\n",
		size(inBytes), size(distinctBytes), len(distinct), size(outBytes))

	g := newGraph(spawns)
	path, cp, err := g.criticalPath(runCost)
	if err != nil {
		return r, err
	}
	_, cpCost, err := g.criticalPath(remoteCost)
	if err != nil {
		return r, err
	}
	p("critical path: %d spawns, %s of commands; %s with each remote spawn's own overheads (upload, fetch, polling)\n",
		len(path), secs(cp), secs(cpCost))
	listed := path
	if len(listed) > top {
		listed = listed[len(listed)-top:]
		p("  (its last %d steps)\n", top)
	}
	for _, i := range listed {
		s := &spawns[i]
		p("  %8s  %-14s %s\n", secs(runCost(s)), s.Mnemonic, s.TargetLabel)
	}
	p("on paper, N workers (each as fast as here, no queueing): at least max(critical path, work/N), at most work/N + critical path\n")
	for _, n := range counts {
		w := cost / time.Duration(n)
		lower := w
		if cpCost > lower {
			lower = cpCost
		}
		p("  %4d workers: %s .. %s\n", n, secs(lower), secs(w+cpCost))
	}
	if runs != nil {
		journalReport(p, spawns, runs)
	}
	r.text = b.String()
	return r, nil
}

// journalReport: which worker ran what, the bytes workers fetched, and the
// GPU routing (actions asking for gpu on gpu-* workers, nothing else there).
func journalReport(p func(string, ...any), spawns []spawnExec, runs map[string]ran) {
	type workerStats struct {
		actions, files, cachedFiles int
		fetched                     int64
		busy                        time.Duration
	}
	stats := map[string]*workerStats{}
	var gpuRuns, strays []int
	missing := 0
	for i := range spawns {
		s := &spawns[i]
		if !s.remote() {
			continue
		}
		j, ok := runs[s.Digest.Hash]
		if !ok {
			missing++
			continue
		}
		ws := stats[j.Worker]
		if ws == nil {
			ws = &workerStats{}
			stats[j.Worker] = ws
		}
		ws.actions++
		ws.files += j.InputFiles
		ws.cachedFiles += j.InputsCached
		ws.fetched += j.InputBytesFetched
		ws.busy += j.End.Sub(j.Start)
		if s.property("gpu") != "" {
			gpuRuns = append(gpuRuns, i)
		} else if strings.HasPrefix(j.Worker, "gpu-") {
			strays = append(strays, i)
		}
	}
	p("workers (from their journals; %d remote spawns not found there):\n", missing)
	for _, name := range sortedKeys(stats) {
		ws := stats[name]
		p("  %-8s %4d actions, busy %s, input files %d (%d linked from its cache), fetched %s\n",
			name, ws.actions, secs(ws.busy), ws.files, ws.cachedFiles, size(ws.fetched))
	}
	p("asking for a GPU: %d spawns; spawns without gpu on a gpu-* worker: %d\n", len(gpuRuns), len(strays))
	sort.Slice(gpuRuns, func(a, b int) bool {
		return runs[spawns[gpuRuns[a]].Digest.Hash].Start.Before(runs[spawns[gpuRuns[b]].Digest.Hash].Start)
	})
	for _, i := range gpuRuns {
		s := &spawns[i]
		j := runs[s.Digest.Hash]
		overlapped := 0
		for k := range spawns {
			o := &spawns[k]
			if !o.remote() || o.property("gpu") != "" {
				continue
			}
			if jo, ok := runs[o.Digest.Hash]; ok && !jo.Start.Before(j.Start) && !jo.End.After(j.End) {
				overlapped++
			}
		}
		p("  %s  %-7s gpu=%s %-11s %-40s %8s  (%d other actions ran meanwhile on other workers)\n",
			j.Start.Format("15:04:05.000"), j.Worker, s.property("gpu"), s.Mnemonic, s.TargetLabel,
			secs(j.End.Sub(j.Start)), overlapped)
	}
	for _, i := range strays {
		s := &spawns[i]
		p("  STRAY: %s %s ran on %s without asking for a GPU\n", s.Mnemonic, s.TargetLabel, runs[s.Digest.Hash].Worker)
	}
}

// notRemoteReport lists the spawns that neither ran remotely nor were remote
// cache hits (what -require-remote fails on), by runner and mnemonic, with
// their targets, and the spawns whose command failed.
func notRemoteReport(p func(string, ...any), spawns []spawnExec) {
	type group struct {
		n       int
		targets []string
	}
	groups := map[string]*group{}
	var failed []int
	for i := range spawns {
		s := &spawns[i]
		if s.ExitCode != 0 {
			failed = append(failed, i)
		}
		if s.remote() || (s.cached() && strings.Contains(s.Runner, "remote")) {
			continue
		}
		key := fmt.Sprintf("%-28q %s", s.Runner, s.Mnemonic)
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
		}
		g.n++
		if len(g.targets) < 5 {
			g.targets = append(g.targets, s.TargetLabel)
		}
	}
	if len(groups) > 0 {
		p("not remote (runner, mnemonic, count, targets):\n")
		for _, key := range sortedKeys(groups) {
			g := groups[key]
			more := ""
			if g.n > len(g.targets) {
				more = " ..."
			}
			p("  %s %d: %s%s\n", key, g.n, strings.Join(g.targets, " "), more)
		}
	}
	for _, i := range failed {
		s := &spawns[i]
		p("  FAILED (exit %d): %s %s (%s)\n", s.ExitCode, s.Mnemonic, s.TargetLabel, s.Runner)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
