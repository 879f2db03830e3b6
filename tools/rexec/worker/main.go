// Command worker is a Remote Execution worker for BuildGrid (or any engine
// that speaks the Remote Workers API's bots protocol).
//
// It keeps a bot session with the engine, takes the leases it is given, and
// for each one fetches the Action, its Command and input root from the CAS
// (every blob checked against its digest), runs the command in a fresh
// directory inside the build environment's root filesystem, uploads the
// outputs, stdout and stderr, and reports the ActionResult with its timing.
// It advertises OSFamily, the root filesystem's package hash
// (cubridge-rootfs) and, with --gpus N, gpu=1..N.
//
//	worker --engine 127.0.0.1:8980 --instance main --token-file T \
//	       --rootfs /path/to/rootfs --work-dir DIR [--gpus 1]
//
// tools/rexec/up starts workers like this; see docs/remote.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
)

type options struct {
	engine, instance, tokenFile, tlsCA string
	rootfs, rootfsHash, workDir, name  string
	gpus, capacity                     int
	defaultTimeout, maxTimeout         time.Duration
	pollTimeout, heartbeat             time.Duration
	journal, readyFile                 string
	cacheDir                           string
	cacheMaxBytes                      int64
	keepFailed                         bool
}

func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	o := &options{}
	host, _ := os.Hostname()
	fs.StringVar(&o.engine, "engine", "127.0.0.1:8980", "the engine's address (host:port)")
	fs.StringVar(&o.instance, "instance", "main", "the instance name the bot session belongs to")
	fs.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (JWT) to present; empty: none")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "PEM roots to verify the engine with; empty: plaintext (loopback)")
	fs.StringVar(&o.rootfs, "rootfs", "", "root filesystem to run commands in (chroot; needs root); empty: this machine")
	fs.StringVar(&o.rootfsHash, "rootfs-hash", "", "package hash to advertise; default: the one recorded in --rootfs")
	fs.StringVar(&o.workDir, "work-dir", "", "directory for the actions' fresh directories (inside --rootfs at the same path)")
	fs.StringVar(&o.name, "name", fmt.Sprintf("%s-%d", host, os.Getpid()), "the bot's id; a restarted worker with the same id replaces its old session")
	fs.IntVar(&o.gpus, "gpus", 0, "GPUs to advertise (gpu=1..N)")
	fs.IntVar(&o.capacity, "capacity", 1, "actions to run at once")
	fs.DurationVar(&o.defaultTimeout, "default-timeout", 15*time.Minute, "timeout of an action that sets none")
	fs.DurationVar(&o.maxTimeout, "max-timeout", time.Hour, "the longest timeout granted")
	fs.DurationVar(&o.pollTimeout, "poll-timeout", 20*time.Second, "deadline of a call that waits for work")
	fs.DurationVar(&o.heartbeat, "heartbeat", 5*time.Second, "how often a busy worker reports in")
	fs.StringVar(&o.journal, "journal", "", "append one JSON line per action start and end to this file")
	fs.StringVar(&o.readyFile, "ready-file", "", "create this file once the bot session exists")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "cache of input files (hard-linked into actions); default: WORK_DIR/.cache")
	fs.Int64Var(&o.cacheMaxBytes, "cache-max-bytes", 8<<30, "size of that cache; 0: no cache")
	fs.BoolVar(&o.keepFailed, "keep-failed", false, "keep the directories of actions that exit non-zero")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if o.workDir == "" {
		return nil, errors.New("--work-dir is required")
	}
	if o.cacheDir == "" {
		o.cacheDir = filepath.Join(o.workDir, ".cache")
	}
	if o.cacheMaxBytes < 0 {
		return nil, fmt.Errorf("--cache-max-bytes %d: negative", o.cacheMaxBytes)
	}
	if o.capacity < 1 {
		return nil, fmt.Errorf("--capacity %d: must be at least 1", o.capacity)
	}
	if o.rootfsHash == "" {
		if o.rootfs == "" {
			return nil, errors.New("--rootfs-hash is required without --rootfs")
		}
		h, err := readRootfsHash(o.rootfs)
		if err != nil {
			return nil, err
		}
		o.rootfsHash = h
	}
	if o.rootfs != "" {
		if abs, err := filepath.Abs(o.workDir); err != nil || abs != o.workDir {
			return nil, fmt.Errorf("--work-dir %q must be an absolute path (it is used inside --rootfs too)", o.workDir)
		}
		// The action directories must be the same inside the rootfs.
		if _, err := os.Stat(filepath.Join(o.rootfs, o.workDir)); err != nil {
			return nil, fmt.Errorf("--work-dir %s is not visible inside --rootfs (bind-mount it there): %v", o.workDir, err)
		}
	}
	return o, nil
}

func main() {
	maybeActionInit()
	log.SetFlags(log.Ldate | log.Ltime | log.Lmicroseconds)
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker: %v\n", err)
		os.Exit(2)
	}
	log.SetPrefix(o.name + " ")
	if err := run(o); err != nil {
		log.Printf("error: %v", err)
		os.Exit(1)
	}
}

func run(o *options) error {
	plat, err := newPlatform(o.rootfsHash, o.gpus)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.workDir, 0o755); err != nil {
		return err
	}
	jr, err := openJournal(o.journal)
	if err != nil {
		return err
	}
	conn, err := dial(o.engine, o.tokenFile, o.tlsCA)
	if err != nil {
		return err
	}
	defer conn.Close()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	batchLimit := int64(0)
	capCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	caps, err := repb.NewCapabilitiesClient(conn).GetCapabilities(capCtx, &repb.GetCapabilitiesRequest{InstanceName: o.instance})
	cancel()
	if err == nil {
		batchLimit = caps.GetCacheCapabilities().GetMaxBatchTotalSizeBytes()
	} else {
		log.Printf("GetCapabilities: %v (batches of at most %d bytes)", err, defaultBatchLimit)
	}
	var cache *fileCache
	if o.cacheMaxBytes > 0 {
		if cache, err = openFileCache(o.cacheDir, o.cacheMaxBytes); err != nil {
			return fmt.Errorf("the worker's cache: %w", err)
		}
	}
	exec := &executor{
		cas: newCASClient(conn, o.instance, batchLimit), cache: cache, platform: plat, name: o.name,
		rootfs: o.rootfs, workDir: o.workDir, isolate: canIsolate(),
		defaultTimeout: o.defaultTimeout, maxTimeout: o.maxTimeout, keepFailed: o.keepFailed, journal: jr,
	}
	b := &bot{
		client: rwpb.NewBotsClient(conn), exec: exec, instance: o.instance, botID: o.name,
		capacity: o.capacity, pollTimeout: o.pollTimeout, heartbeat: o.heartbeat,
		ready: func() {
			if o.readyFile != "" {
				if err := os.WriteFile(o.readyFile, []byte(o.name+"\n"), 0o644); err != nil {
					log.Printf("ready file: %v", err)
				}
			}
		},
	}
	log.Printf("serving %s (instance %q) from %s, rootfs %q", o.engine, o.instance, o.workDir, o.rootfs)
	return b.run(ctx)
}
