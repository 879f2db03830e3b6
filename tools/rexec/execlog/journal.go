package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ran is one action a worker ran, from its journal (tools/rexec/worker's
// journal.go: one JSON line per action start and end).
type ran struct {
	Event             string    `json:"event"`
	Worker            string    `json:"worker"`
	Action            string    `json:"action"`
	Start             time.Time `json:"start"`
	End               time.Time `json:"end"`
	Status            string    `json:"status"`
	InputFiles        int       `json:"input_files"`
	InputsCached      int       `json:"inputs_cached"`
	InputBytesFetched int64     `json:"input_bytes_fetched"`
}

// readJournals reads every *.actions.jsonl in dir and keeps, per action
// digest, the last run that ended.
func readJournals(dir string) (map[string]ran, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.actions.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no workers' journals (*.actions.jsonl) in %s", dir)
	}
	runs := map[string]ran{}
	for _, p := range paths {
		if err := readJournal(p, runs); err != nil {
			return nil, err
		}
	}
	return runs, nil
}

func readJournal(path string, runs map[string]ran) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var r ran
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if r.Event != "end" {
			continue
		}
		if old, ok := runs[r.Action]; !ok || r.End.After(old.End) {
			runs[r.Action] = r
		}
	}
	return sc.Err()
}
