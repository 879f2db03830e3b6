package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

// run is one measured Bazel command.
type run struct {
	Name       string         `json:"name"`
	Command    string         `json:"command"`
	WallS      float64        `json:"wall_s"`
	Summary    string         `json:"process_summary"`
	Executed   int            `json:"spawns_executed"`
	ByMnemonic map[string]int `json:"executed_by_mnemonic"`
	Compiled   []string       `json:"go_packages_compiled,omitempty"`
}

var summaryRE = regexp.MustCompile(`(?m)^INFO: [0-9]+ process.*$`)

// bazel runs tools/bazel ARGS... in dir with an execution log, and measures it.
func bazel(name, bazelPath, dir, logDir string, args ...string) (*run, error) {
	logFile := filepath.Join(logDir, fmt.Sprintf("exec-%d.json", time.Now().UnixNano()))
	full := append([]string{}, args...)
	logged := args[0] == "build" || args[0] == "test"
	if logged {
		full = append(full, "--execution_log_json_file="+logFile)
	}
	cmd := exec.Command(bazelPath, full...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(&out, progress{})
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", name, err, tail(out.String(), 3000))
	}
	var spawns []spawn
	if logged {
		spawns, err = readExecLog(logFile)
		os.Remove(logFile)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the execution log: %v", name, err)
		}
	}
	ran := executed(spawns)
	r := &run{
		Name:       name,
		Command:    "tools/bazel " + joinArgs(args),
		WallS:      float64(int(wall*10)) / 10,
		Summary:    lastMatch(summaryRE, out.String()),
		Executed:   len(ran),
		ByMnemonic: byMnemonic(ran),
		Compiled:   compiledPackages(ran),
	}
	fmt.Fprintf(os.Stderr, "buildperf: %s: %.1f s, %d spawns executed %v %v\n", name, r.WallS, r.Executed, r.ByMnemonic, r.Compiled)
	return r, nil
}

// progress shows Bazel's progress when -v is given.
type progress struct{}

func (progress) Write(p []byte) (int, error) {
	if *verbose {
		os.Stderr.Write(p)
	}
	return len(p), nil
}

func lastMatch(re *regexp.Regexp, s string) string {
	m := re.FindAllString(s, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func joinArgs(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// appendLine appends a line to a file and returns a function restoring it.
func appendLine(path, line string) (func() error, error) {
	old, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, append(append([]byte{}, old...), []byte(line+"\n")...), info.Mode()); err != nil {
		return nil, err
	}
	return func() error { return os.WriteFile(path, old, info.Mode()) }, nil
}
