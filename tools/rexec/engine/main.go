// Command engine starts and stops a Remote Execution engine on this machine:
// BuildGrid 0.9.1 (in its own venv) with a private PostgreSQL 18, both in an
// overlay of the build environment's root filesystem, and workers
// (tools/rexec/worker) that run actions inside that rootfs. Everything
// listens on 127.0.0.1 only; requests carry JWTs that `up` mints.
//
// Run it through tools/rexec/up and tools/rexec/down (they build it first);
// see docs/remote.md.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func defaultState() string {
	if d := os.Getenv("CUBRIDGE_REXEC_DIR"); d != "" {
		return d
	}
	return filepath.Join(cacheDir(), "rexec")
}

func cacheDir() string {
	cache := os.Getenv("CUBRIDGE_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "cubridge")
	}
	return cache
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: engine up --rootfs DIR --worker-bin FILE [--workers N] [--gpu-workers M] [flags]
       engine down
       engine status
       engine token --subject bazel|worker [--ttl D]
(every command takes --state DIR; default $CUBRIDGE_REXEC_DIR or ~/.cache/cubridge/rexec)
`)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("[tools/rexec] ")
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	if os.Geteuid() != 0 {
		log.Fatal("needs root (it mounts the engine's root filesystem and runs actions in a chroot)")
	}
	cmd, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	state := fs.String("state", defaultState(), "directory for everything the engine keeps")
	var err error
	switch cmd {
	case "up":
		o := upOptions{}
		fs.StringVar(&o.layers, "layers", filepath.Join(cacheDir(), "rexec-layers"), "directory of the engine's software layers, shared by state directories")
		fs.StringVar(&o.rootfs, "rootfs", "", "the build rootfs (CUBRIDGE_PRINT_ROOTFS=1 tools/bazel prints it)")
		fs.StringVar(&o.workerBin, "worker-bin", "", "the worker binary (tools/rexec/worker, built)")
		fs.IntVar(&o.workers, "workers", 1, "workers without GPUs (0 and no GPU workers: a cache only)")
		fs.IntVar(&o.gpuWorkers, "gpu-workers", 0, "workers that advertise GPUs")
		fs.IntVar(&o.gpus, "gpus-per-worker", 1, "GPUs each GPU worker advertises (gpu=1..N)")
		fs.IntVar(&o.capacity, "capacity", 1, "actions each worker runs at once")
		fs.Int64Var(&o.workerCacheBytes, "worker-cache-bytes", 8<<30, "size of each worker's cache of input files; 0: none")
		fs.IntVar(&o.port, "port", defaultPort, "the engine's port on 127.0.0.1")
		fs.StringVar(&o.instance, "instance", "main", "the REAPI instance name")
		fs.DurationVar(&o.keepalive, "bot-keepalive", 30*time.Second, "a worker silent this long is dead; its actions go elsewhere")
		fs.DurationVar(&o.tokenTTL, "token-ttl", 30*24*time.Hour, "lifetime of the tokens up mints")
		fs.Parse(args)
		o.state = *state
		if o.rootfs == "" || o.workerBin == "" {
			usage()
			os.Exit(2)
		}
		err = up(o)
	case "down":
		fs.Parse(args)
		err = down(*state)
	case "status":
		fs.Parse(args)
		err = status(*state)
	case "token":
		subject := fs.String("subject", subjectBazel, "the token's subject (bazel or worker)")
		ttl := fs.Duration("ttl", 24*time.Hour, "its lifetime")
		fs.Parse(args)
		err = printToken(*state, *subject, *ttl)
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		log.Fatalf("error: %v", err)
	}
}

func status(state string) error {
	l := layout{state: state}
	addr := readOr(l, "address")
	if pid, alive := bgdProc(l).running(); alive {
		fmt.Printf("engine: up at grpc://%s (bgd pid %d), instance %s, rootfs %s\n", addr, pid, readOr(l, "instance"), readOr(l, "rootfs-hash"))
	} else {
		fmt.Println("engine: down")
	}
	pids, _ := filepath.Glob(l.pidFile("worker-*"))
	for _, pidFile := range pids {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(pidFile), "worker-"), ".pid")
		if pid, alive := workerProc(l, name).running(); alive {
			fmt.Printf("worker %s: up (pid %d)\n", name, pid)
		} else {
			fmt.Printf("worker %s: down\n", name)
		}
	}
	return nil
}

func printToken(state, subject string, ttl time.Duration) error {
	if subject != subjectBazel && subject != subjectWorker {
		return fmt.Errorf("--subject %q: bazel or worker", subject)
	}
	l := layout{state: state}
	if err := os.MkdirAll(l.keys(), 0o700); err != nil {
		return err
	}
	key, err := loadOrCreateKey(filepath.Join(l.keys(), "jwt.key"))
	if err != nil {
		return err
	}
	tok, err := mintToken(key, subject, ttl, time.Now())
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}

// defaultPort is the engine's port that .bazelrc's --config=rexec and
// --config=rexec-cache name.
const defaultPort = 8980
