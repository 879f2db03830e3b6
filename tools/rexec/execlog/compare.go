package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// outputsOnly is the part of a SpawnExec that -compare reads: it skips the
// inputs, which are most of a large log.
type outputsOnly struct {
	Mnemonic      string `json:"mnemonic"`
	TargetLabel   string `json:"targetLabel"`
	ActualOutputs []file `json:"actualOutputs"`
}

// producer is the spawn that wrote an output file, and its digest.
type producer struct {
	digest           digest
	mnemonic, target string
}

// readOutputs reads an execution log's output files: path -> digest and who
// wrote it. A path written by more than one spawn keeps the last.
func readOutputs(r io.Reader) (map[string]producer, error) {
	dec := json.NewDecoder(r)
	out := map[string]producer{}
	for n := 1; ; n++ {
		var s outputsOnly
		err := dec.Decode(&s)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("entry %d of the execution log: %w", n, err)
		}
		for _, o := range s.ActualOutputs {
			out[o.Path] = producer{digest: o.Digest, mnemonic: s.Mnemonic, target: s.TargetLabel}
		}
	}
}

// isTestOutput: what a test run writes (its log, XML report, outputs zip):
// it differs from run to run by nature (timings), so it is counted apart.
func isTestOutput(path string) bool { return strings.Contains(path, "/testlogs/") }

// comparison is compare's answer.
type comparison struct {
	text      string
	different int // build outputs (not test logs) in both logs with different digests
}

// compare says which output files two builds both wrote, and which of those
// differ: a is the base (e.g. the local build), b the other (remote).
func compare(a, b map[string]producer, aName, bName string, top int) comparison {
	var c comparison
	var sb strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&sb, format, args...) }
	var same, sameTest, diffTest, onlyA, onlyB int
	var diffs []string
	for path, pa := range a {
		pb, ok := b[path]
		if !ok {
			onlyA++
			continue
		}
		equal := pa.digest == pb.digest
		switch {
		case isTestOutput(path) && equal:
			sameTest++
		case isTestOutput(path):
			diffTest++
		case equal:
			same++
		default:
			diffs = append(diffs, path)
		}
	}
	for path := range b {
		if _, ok := a[path]; !ok {
			onlyB++
		}
	}
	sort.Strings(diffs)
	c.different = len(diffs)
	p("outputs in both logs: %d build outputs, %d identical, %d different; test outputs (testlogs/): %d identical, %d different\n",
		same+len(diffs), same, len(diffs), sameTest, diffTest)
	p("outputs only in %s: %d; only in %s: %d\n", aName, onlyA, bName, onlyB)
	byMnemonic := map[string]int{}
	for _, path := range diffs {
		byMnemonic[a[path].mnemonic]++
	}
	if len(diffs) > 0 {
		p("different build outputs by mnemonic:")
		for _, m := range sortedKeys(byMnemonic) {
			p(" %s %d", m, byMnemonic[m])
		}
		p("\n")
	}
	for i, path := range diffs {
		if i == top {
			p("  ... and %d more\n", len(diffs)-top)
			break
		}
		pa, pb := a[path], b[path]
		p("  %-14s %-40s %s  %s/%d vs %s/%d\n", pa.mnemonic, pa.target, path,
			short(pa.digest.Hash), pa.digest.SizeBytes, short(pb.digest.Hash), pb.digest.SizeBytes)
	}
	c.text = sb.String()
	return c
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
