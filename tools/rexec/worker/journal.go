package main

import (
	"encoding/json"
	"log"
	"os"
	"sync"
	"time"
)

// journalEntry is one line of the action journal: which worker ran which
// action, when, and how it ended. Tests and the GPU-routing demonstration
// join it with Bazel's execution log on the action digest.
type journalEntry struct {
	Event    string     `json:"event"` // "start" or "end"
	Worker   string     `json:"worker"`
	Lease    string     `json:"lease"`
	Action   string     `json:"action"` // the Action's sha256
	Argv0    string     `json:"argv0,omitempty"`
	Output   string     `json:"output,omitempty"` // the first declared output
	Start    time.Time  `json:"start"`
	End      *time.Time `json:"end,omitempty"`
	Status   string     `json:"status,omitempty"`
	ExitCode int        `json:"exit_code"`
	// The input root: its files, those linked from the worker's cache, and
	// the bytes fetched from the CAS.
	InputFiles        int   `json:"input_files,omitempty"`
	InputsCached      int   `json:"inputs_cached,omitempty"`
	InputBytesFetched int64 `json:"input_bytes_fetched,omitempty"`
}

// journal appends entries as JSON lines to a file (or nowhere).
type journal struct {
	mu sync.Mutex
	f  *os.File
}

func openJournal(path string) (*journal, error) {
	if path == "" {
		return &journal{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &journal{f: f}, nil
}

func (j *journal) record(e journalEntry) {
	if j == nil || j.f == nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		log.Printf("journal: %v", err)
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		log.Printf("journal: %v", err)
	}
}
