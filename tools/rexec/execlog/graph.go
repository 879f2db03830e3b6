package main

import (
	"fmt"
	"time"
)

// graph links each spawn to the spawns that produced its inputs: by path,
// else (runfiles name an output by another path) by content, when exactly
// one spawn produced a non-empty file with that digest.
type graph struct {
	spawns []spawnExec
	deps   [][]int
}

func newGraph(spawns []spawnExec) *graph {
	byPath := map[string]int{}
	byDigest := map[string]int{}
	for i, s := range spawns {
		for _, o := range s.ActualOutputs {
			byPath[o.Path] = i
			if o.Digest.SizeBytes == 0 {
				continue
			}
			key := o.Digest.Hash
			if _, seen := byDigest[key]; seen {
				byDigest[key] = -1 // two producers: ambiguous
			} else {
				byDigest[key] = i
			}
		}
	}
	g := &graph{spawns: spawns, deps: make([][]int, len(spawns))}
	for i, s := range spawns {
		seen := map[int]bool{}
		for _, in := range s.Inputs {
			p, ok := byPath[in.Path]
			if !ok && in.Digest.SizeBytes > 0 {
				if q, found := byDigest[in.Digest.Hash]; found && q >= 0 {
					p, ok = q, true
				}
			}
			if ok && p != i && !seen[p] {
				seen[p] = true
				g.deps[i] = append(g.deps[i], p)
			}
		}
	}
	return g
}

// criticalPath is the chain of dependent spawns whose weights add up the
// most, first spawn first, and that sum.
func (g *graph) criticalPath(weight func(*spawnExec) time.Duration) ([]int, time.Duration, error) {
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(g.spawns))
	best := make([]time.Duration, len(g.spawns)) // the heaviest chain ending at i
	prev := make([]int, len(g.spawns))
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("the spawns' inputs and outputs form a cycle through %s (%s)", g.spawns[i].TargetLabel, g.spawns[i].Mnemonic)
		}
		state[i] = visiting
		prev[i] = -1
		var longest time.Duration
		for _, d := range g.deps[i] {
			if err := visit(d); err != nil {
				return err
			}
			if best[d] > longest {
				longest, prev[i] = best[d], d
			}
		}
		best[i] = longest + weight(&g.spawns[i])
		state[i] = done
		return nil
	}
	end := -1
	for i := range g.spawns {
		if err := visit(i); err != nil {
			return nil, 0, err
		}
		if end < 0 || best[i] > best[end] {
			end = i
		}
	}
	if end < 0 {
		return nil, 0, nil
	}
	var path []int
	for i := end; i >= 0; i = prev[i] {
		path = append([]int{i}, path...)
	}
	return path, best[end], nil
}
