package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"sort"
	"strings"
)

// spawn is the part of an execution-log entry (--execution_log_json_file:
// a stream of SpawnExec JSON objects) that buildperf reads.
type spawn struct {
	CommandArgs    []string `json:"commandArgs"`
	Mnemonic       string   `json:"mnemonic"`
	TargetLabel    string   `json:"targetLabel"`
	Runner         string   `json:"runner"`
	RemoteCacheHit bool     `json:"remoteCacheHit"`
	CacheHit       bool     `json:"cacheHit"`
}

// readExecLog reads every spawn of an execution log.
func readExecLog(path string) ([]spawn, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	var spawns []spawn
	for {
		var s spawn
		if err := dec.Decode(&s); errors.Is(err, io.EOF) {
			return spawns, nil
		} else if err != nil {
			return nil, err
		}
		spawns = append(spawns, s)
	}
}

// executed: spawns that ran (not taken from a cache).
func executed(spawns []spawn) []spawn {
	var out []spawn
	for _, s := range spawns {
		if s.CacheHit || s.RemoteCacheHit || strings.Contains(s.Runner, "cache hit") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// byMnemonic counts spawns per mnemonic.
func byMnemonic(spawns []spawn) map[string]int {
	m := map[string]int{}
	for _, s := range spawns {
		m[s.Mnemonic]++
	}
	return m
}

// compiledPackages: the -importpath of each GoCompilePkg spawn (rules_go's
// compile action; with its -mode when it has one).
func compiledPackages(spawns []spawn) []string {
	var out []string
	for _, s := range spawns {
		if s.Mnemonic != "GoCompilePkg" {
			continue
		}
		ip, mode := "?", "lib"
		for i := 0; i+1 < len(s.CommandArgs); i++ {
			switch s.CommandArgs[i] {
			case "-importpath":
				ip = s.CommandArgs[i+1]
			case "-mode":
				mode = s.CommandArgs[i+1]
			}
		}
		out = append(out, ip+" ("+mode+")")
	}
	sort.Strings(out)
	return out
}
