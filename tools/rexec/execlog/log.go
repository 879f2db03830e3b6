package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// spawnExec is the part of Bazel's execution log entry (SpawnExec, from
// src/main/protobuf/spawn.proto, written as proto JSON by
// --execution_log_json_file) that the report reads.
type spawnExec struct {
	Mnemonic      string   `json:"mnemonic"`
	TargetLabel   string   `json:"targetLabel"`
	Runner        string   `json:"runner"`
	CacheHit      bool     `json:"cacheHit"`
	ExitCode      int      `json:"exitCode"`
	Inputs        []file   `json:"inputs"`
	ActualOutputs []file   `json:"actualOutputs"`
	ListedOutputs []string `json:"listedOutputs"`
	Digest        digest   `json:"digest"` // the action's, when it went to a remote cache or executor
	Platform      struct {
		Properties []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"properties"`
	} `json:"platform"`
	Metrics struct {
		TotalTime         duration `json:"totalTime"`
		ExecutionWallTime duration `json:"executionWallTime"`
		FetchTime         duration `json:"fetchTime"`
		UploadTime        duration `json:"uploadTime"`
		QueueTime         duration `json:"queueTime"`
		StartTime         string   `json:"startTime"`
	} `json:"metrics"`
}

type file struct {
	Path   string `json:"path"`
	Digest digest `json:"digest"`
}

type digest struct {
	Hash      string `json:"hash"`
	SizeBytes int64  `json:"sizeBytes,string"`
}

// duration reads proto JSON's Duration ("1.250s").
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string like \"1.5s\": %s", b)
	}
	if !strings.HasSuffix(s, "s") {
		return fmt.Errorf("duration %q: no trailing s", s)
	}
	secs, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = duration(secs * float64(time.Second))
	return nil
}

func (s *spawnExec) property(name string) string {
	for _, p := range s.Platform.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// remote: the engine executed it (not a cache hit, not here).
func (s *spawnExec) remote() bool { return s.Runner == "remote" && !s.CacheHit }

// cached: its result came from a cache.
func (s *spawnExec) cached() bool { return s.CacheHit || strings.Contains(s.Runner, "cache hit") }

// runTime is how long its command ran: on the worker for a remote spawn
// (the engine's ExecutedActionMetadata), the process's wall time here.
func (s *spawnExec) runTime() time.Duration {
	if s.Metrics.ExecutionWallTime > 0 {
		return time.Duration(s.Metrics.ExecutionWallTime)
	}
	return time.Duration(s.Metrics.TotalTime)
}

// readLog reads a JSON execution log: one SpawnExec object after another.
func readLog(r io.Reader) ([]spawnExec, error) {
	dec := json.NewDecoder(r)
	var spawns []spawnExec
	for {
		var s spawnExec
		err := dec.Decode(&s)
		if err == io.EOF {
			return spawns, nil
		}
		if err != nil {
			return nil, fmt.Errorf("entry %d of the execution log: %w", len(spawns)+1, err)
		}
		spawns = append(spawns, s)
	}
}
