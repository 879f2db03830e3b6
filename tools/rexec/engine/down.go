package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// down stops what up started, in reverse order, and unmounts what it
// mounted. Whatever is already stopped is skipped: down is idempotent.
func down(state string) error {
	l := layout{state: state}
	if _, err := os.Stat(state); os.IsNotExist(err) {
		return nil
	}
	unlock, err := lockState(l)
	if err != nil {
		return err
	}
	defer unlock()
	var problems []string
	pids, _ := filepath.Glob(l.pidFile("worker-*"))
	for _, pidFile := range pids {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(pidFile), "worker-"), ".pid")
		if err := workerProc(l, name).stop(15 * time.Second); err != nil {
			problems = append(problems, err.Error())
		}
		os.Remove(l.readyFile(name))
	}
	if err := bgdProc(l).stop(20 * time.Second); err != nil {
		problems = append(problems, err.Error())
	}
	if hash, err := readRecorded(l, "rootfs-hash"); err == nil {
		l.rootfsHash = hash
		if ok, _ := isMountPoint(l.engineRoot()); ok {
			if err := stopPostgres(l); err != nil {
				problems = append(problems, "PostgreSQL: "+err.Error())
			}
		}
	}
	if err := unmountTree(l.workersRoot()); err != nil {
		problems = append(problems, err.Error())
	}
	if rootfs, err := readRecorded(l, "rootfs"); err == nil {
		for _, dir := range []string{l.workers(), l.tokens()} {
			if err := unmountTree(filepath.Join(rootfs, dir)); err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	// The mount points up made in the rootfs, deepest first; a directory
	// that is not empty (someone else's) stays.
	if dirs, err := readRecorded(l, "rootfs-dirs"); err == nil {
		list := strings.Split(dirs, "\n")
		sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
		for _, d := range list {
			os.Remove(d)
		}
		os.Remove(l.recorded("rootfs-dirs"))
	}
	if err := unmountTree(l.engineRoot()); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	log.Printf("engine down (state kept in %s)", state)
	return nil
}
