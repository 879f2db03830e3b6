package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type upOptions struct {
	state, layers, rootfs, workerBin string
	workers, gpuWorkers, gpus        int
	port                             int
	instance                         string
	keepalive, tokenTTL              time.Duration
	capacity                         int
	workerCacheBytes                 int64
}

func (o upOptions) address() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)) }

func bgdProc(l layout) proc { return proc{name: "bgd", pidFile: l.pidFile("bgd"), tag: "bgd"} }

func workerProc(l layout, name string) proc {
	return proc{name: name, pidFile: l.pidFile("worker-" + name), tag: "worker"}
}

// workerNames are cpu-1..N and gpu-1..M.
func workerNames(cpu, gpu int) []string {
	var names []string
	for i := 1; i <= cpu; i++ {
		names = append(names, fmt.Sprintf("cpu-%d", i))
	}
	for i := 1; i <= gpu; i++ {
		names = append(names, fmt.Sprintf("gpu-%d", i))
	}
	return names
}

func up(o upOptions) error {
	started := time.Now()
	// No workers at all is an engine that serves its CAS and action cache
	// only (--config=rexec-cache: CI's remote-cache check).
	if o.workers < 0 || o.gpuWorkers < 0 {
		return fmt.Errorf("--workers %d --gpu-workers %d: negative", o.workers, o.gpuWorkers)
	}
	if o.workerCacheBytes < 0 {
		return fmt.Errorf("--worker-cache-bytes %d: negative", o.workerCacheBytes)
	}
	if o.gpuWorkers > 0 && o.gpus < 1 {
		return fmt.Errorf("--gpus-per-worker %d: at least 1", o.gpus)
	}
	hash, err := readRootfsHash(o.rootfs)
	if err != nil {
		return err
	}
	l := layout{state: o.state, layers: o.layers, rootfsHash: hash}
	unlock, err := lockState(l)
	if err != nil {
		return err
	}
	defer unlock()
	if pid, alive := bgdProc(l).running(); alive {
		return fmt.Errorf("the engine is already up (bgd pid %d, %s); tools/rexec/down first", pid, readOr(l, "address"))
	}
	if err := l.makeDirs(); err != nil {
		return err
	}
	for name, value := range map[string]string{"rootfs": o.rootfs, "rootfs-hash": hash, "address": o.address(), "instance": o.instance} {
		if err := writeRecorded(l, name, value); err != nil {
			return err
		}
	}
	if err := checkPortFree(o.address()); err != nil {
		return err
	}
	if err := ensureLayer(l, o.rootfs); err != nil {
		return err
	}
	provisioned := time.Now()
	if err := mountEngineRoot(l, o.rootfs); err != nil {
		return err
	}

	key, err := loadOrCreateKey(filepath.Join(l.keys(), "jwt.key"))
	if err != nil {
		return err
	}
	pub, err := publicKeyPEM(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(l.inEngine(engineJWTPub), pub, 0o644); err != nil {
		return err
	}
	for _, subject := range []string{subjectBazel, subjectWorker} {
		tok, err := mintToken(key, subject, o.tokenTTL, time.Now())
		if err != nil {
			return err
		}
		if err := writeToken(l.tokenFile(subject), tok); err != nil {
			return err
		}
	}

	if err := startPostgres(l); err != nil {
		return err
	}
	bg, err := lookupUser(l.engineRoot(), engineUser)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.inEngine(engineCAS), 0o755); err != nil {
		return err
	}
	if err := os.Chown(l.inEngine(engineCAS), int(bg.uid), int(bg.gid)); err != nil {
		return err
	}
	if _, err := runInRoot(l.engineRoot(), &bg, nil, engineVenv+"/bin/bgd", "migrate", "apply", pgConnString()); err != nil {
		return err
	}
	var gpuCounts []int
	for n := 1; n <= o.gpus && o.gpuWorkers > 0; n++ {
		gpuCounts = append(gpuCounts, n)
	}
	cfg := engineConfig{
		Address: o.address(), Instance: o.instance, RootfsHash: hash, GPUCounts: gpuCounts,
		KeepaliveSeconds: int(o.keepalive.Seconds()), ThreadPool: 256, MaxRPCs: 4096, User: engineUser,
		PGSocket: enginePGSock, CAS: engineCAS, JWTPublicKey: engineJWTPub, ACL: engineACL, Audience: audience,
	}
	if err := writeConfigs(l, cfg); err != nil {
		return err
	}
	databaseReady := time.Now()

	bgd := rootCommand(l.engineRoot(), &bg, nil, engineVenv+"/bin/bgd", "server", "start", engineConfigFile)
	if err := bgdProc(l).start(bgd, l.logFile("bgd")); err != nil {
		return err
	}
	if err := waitEngine(l, o); err != nil {
		return err
	}
	engineReady := time.Now()

	// Actions run in the workers' root (the build rootfs alone, read only),
	// in directories under the state dir: the same path inside it, whose
	// mount point is made in the rootfs. Bazel, which runs in the build
	// rootfs, reads its token there (tools/rexec/credential-helper).
	var made []string // directories made in the rootfs, for down to remove
	for _, dir := range []string{l.workers(), l.tokens()} {
		target := filepath.Join(o.rootfs, dir)
		made = append(made, missingDirs(target)...)
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	}
	if err := writeRecorded(l, "rootfs-dirs", strings.Join(made, "\n")); err != nil {
		return err
	}
	if err := bind(l.tokens(), filepath.Join(o.rootfs, l.tokens())); err != nil {
		return err
	}
	if err := mountWorkersRoot(l, o.rootfs); err != nil {
		return err
	}
	names := workerNames(o.workers, o.gpuWorkers)
	for _, name := range names {
		gpus := 0
		if name[:3] == "gpu" {
			gpus = o.gpus
		}
		if err := startWorker(l, o, name, gpus); err != nil {
			return err
		}
	}
	if err := waitWorkers(l, names); err != nil {
		return err
	}
	done := time.Now()
	fmt.Printf(`engine up: BuildGrid 0.9.1 at grpc://%s, instance %q, rootfs %s
  start: %.1f s in all (provisioning %.1f s, PostgreSQL and schema %.1f s, BuildGrid %.1f s, %d workers %.1f s)
  workers: %v
  Bazel:   %s
           (token: %s)
  logs:    %s   state: %s
  stop:    tools/rexec/down
`, o.address(), o.instance, hash,
		done.Sub(started).Seconds(), provisioned.Sub(started).Seconds(), databaseReady.Sub(provisioned).Seconds(),
		engineReady.Sub(databaseReady).Seconds(), len(names), done.Sub(engineReady).Seconds(),
		names, bazelHint(o, l.state, filepath.Join(cacheDir(), "rexec")), l.tokenFile(subjectBazel), l.logs(), l.state)
	return nil
}

// bazelHint is the command line that uses this engine: remote execution,
// or with no workers its CAS and action cache only; the port and the state
// (where the credential helper finds the token) when not the defaults.
func bazelHint(o upOptions, state, defaultState string) string {
	config, flag := "rexec", "--remote_executor"
	if o.workers+o.gpuWorkers == 0 {
		config, flag = "rexec-cache", "--remote_cache"
	}
	hint := "tools/bazel build --config=" + config
	if o.port != defaultPort {
		hint += " " + flag + "=grpc://" + o.address()
	}
	if state != defaultState {
		hint = "CUBRIDGE_REXEC_DIR=" + state + " " + hint
	}
	return hint + " ..."
}

func readOr(l layout, name string) string {
	v, err := readRecorded(l, name)
	if err != nil {
		return "?"
	}
	return v
}

func checkPortFree(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s is taken (another engine? tools/rexec/down, or --port): %w", addr, err)
	}
	return lis.Close()
}

// waitEngine waits until BuildGrid answers GetCapabilities with Bazel's token.
func waitEngine(l layout, o upOptions) error {
	tok, err := os.ReadFile(l.tokenFile(subjectBazel))
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(o.address(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(bearer(string(tok))))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := repb.NewCapabilitiesClient(conn)
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, alive := bgdProc(l).running(); !alive {
			return fmt.Errorf("BuildGrid exited; its log %s ends:\n%s", l.logFile("bgd"), logTail(l.logFile("bgd")))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := client.GetCapabilities(ctx, &repb.GetCapabilitiesRequest{InstanceName: o.instance})
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("BuildGrid did not answer in 90 s (%v); its log %s ends:\n%s", err, l.logFile("bgd"), logTail(l.logFile("bgd")))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// bearer presents a token on every call (plaintext is fine on loopback).
type bearer string

func (b bearer) GetRequestMetadata(_ context.Context, _ ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + strings.TrimSpace(string(b))}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return tail(string(b), 15)
}

func startWorker(l layout, o upOptions, name string, gpus int) error {
	workDir := filepath.Join(l.workers(), name)
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	os.Remove(l.readyFile(name))
	cmd := exec.Command(o.workerBin,
		"--engine", o.address(), "--instance", o.instance, "--token-file", l.tokenFile(subjectWorker),
		"--rootfs", l.workersRoot(), "--work-dir", workDir, "--name", name, "--gpus", strconv.Itoa(gpus),
		"--capacity", strconv.Itoa(o.capacity), "--cache-max-bytes", strconv.FormatInt(o.workerCacheBytes, 10),
		"--journal", filepath.Join(l.logs(), name+".actions.jsonl"), "--ready-file", l.readyFile(name))
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	return workerProc(l, name).start(cmd, l.logFile("worker-"+name))
}

// waitWorkers waits until every worker holds a bot session.
func waitWorkers(l layout, names []string) error {
	deadline := time.Now().Add(60 * time.Second)
	for _, name := range names {
		for {
			if _, err := os.Stat(l.readyFile(name)); err == nil {
				break
			}
			if _, alive := workerProc(l, name).running(); !alive {
				return fmt.Errorf("worker %s exited; its log %s ends:\n%s", name, l.logFile("worker-"+name), logTail(l.logFile("worker-"+name)))
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("worker %s made no bot session in 60 s; see %s", name, l.logFile("worker-"+name))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// missingDirs lists dir and those of its parents that do not exist yet,
// deepest first.
func missingDirs(dir string) []string {
	var missing []string
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	return missing
}

// flockWait takes an exclusive lock on path, waiting for it.
func flockWait(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// lockState keeps two `up`/`down` from running at once on one state dir.
func lockState(l layout) (func(), error) {
	if err := os.MkdirAll(l.state, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(l.path("lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another tools/rexec/up or down is running on %s", l.state)
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
