// Command execlog reads Bazel's JSON execution log of a build
// (--execution_log_json_file) and says where its spawns ran, how much work
// they were, its critical path, the bytes its actions read and wrote, and
// what N remote workers would give (on paper: the critical path and the
// work spread over N). With the workers' journals of tools/rexec (-journals
// <state>/logs) it also says which worker ran what, the bytes the workers
// fetched, and where the actions that ask for a GPU ran.
//
//	tools/bazel test --config=rexec --execution_log_json_file=$PWD/exec.json //...
//	go run ./tools/rexec/execlog -journals ~/.cache/cubridge/rexec/logs exec.json
//
// -require-remote fails unless every spawn was executed remotely or was a
// remote cache hit; the report lists those that were not.
//
// -compare BASE.json compares instead: the output files both logs wrote and
// their digests (a local build's log as BASE, a remote one's as the
// argument); -require-identical fails when a build output (not a test log)
// differs. See docs/remote.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	journals := flag.String("journals", "", "directory of the workers' action journals (<state>/logs)")
	workers := flag.String("workers", "1,2,10,100", "worker counts to project the build for")
	top := flag.Int("top", 12, "steps of the critical path to list")
	requireRemote := flag.Bool("require-remote", false, "fail unless every spawn ran remotely or was a remote cache hit")
	compareWith := flag.String("compare", "", "compare the output digests of this execution log (the base) with the argument's")
	requireIdentical := flag.Bool("require-identical", false, "with -compare: fail when a build output both wrote differs")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: execlog [flags] EXECUTION_LOG.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *compareWith != "" {
		if err := runCompare(*compareWith, flag.Arg(0), *top, *requireIdentical); err != nil {
			fmt.Fprintf(os.Stderr, "execlog: %v\n", err)
			os.Exit(1)
		}
		return
	}
	counts, err := parseCounts(*workers)
	if err != nil {
		fmt.Fprintf(os.Stderr, "execlog: -workers: %v\n", err)
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *journals, counts, *top, *requireRemote); err != nil {
		fmt.Fprintf(os.Stderr, "execlog: %v\n", err)
		os.Exit(1)
	}
}

func parseCounts(s string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive worker count", f)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func run(logPath, journals string, counts []int, top int, requireRemote bool) error {
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	spawns, err := readLog(f)
	f.Close()
	if err != nil {
		return err
	}
	if len(spawns) == 0 {
		return fmt.Errorf("%s holds no spawns", logPath)
	}
	var runs map[string]ran
	if journals != "" {
		if runs, err = readJournals(journals); err != nil {
			return err
		}
	}
	r, err := analyze(spawns, runs, counts, top)
	if err != nil {
		return err
	}
	fmt.Print(r.text)
	if requireRemote && r.notRemote > 0 {
		return fmt.Errorf("%d of %d spawns neither ran remotely nor were remote cache hits", r.notRemote, len(spawns))
	}
	return nil
}

func runCompare(basePath, otherPath string, top int, requireIdentical bool) error {
	read := func(path string) (map[string]producer, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		out, err := readOutputs(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return out, nil
	}
	base, err := read(basePath)
	if err != nil {
		return err
	}
	other, err := read(otherPath)
	if err != nil {
		return err
	}
	c := compare(base, other, basePath, otherPath, top)
	fmt.Print(c.text)
	if requireIdentical && c.different > 0 {
		return fmt.Errorf("%d build outputs differ", c.different)
	}
	return nil
}
