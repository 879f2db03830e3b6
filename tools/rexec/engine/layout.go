package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// layout is where everything `up` makes lives: one state directory (by
// default ~/.cache/cubridge/rexec), never the repository.
type layout struct {
	state string
	// layers holds the engine's software layers (PostgreSQL, BuildGrid's
	// venv), shared by every state directory: by default
	// ~/.cache/cubridge/rexec-layers.
	layers string
	// rootfsHash keys the engine's layer: a new build rootfs gets a fresh
	// engine (its own database and CAS), as its actions would differ anyway.
	rootfsHash string
}

func (l layout) path(parts ...string) string {
	return filepath.Join(append([]string{l.state}, parts...)...)
}

// The engine runs in an overlay: the build rootfs at the bottom and the
// software layer over it (both read only), and the state's own upper layer
// holding the database, the CAS and the configuration on top. The build
// rootfs itself is never written.
func (l layout) engineRoot() string { return l.path("engine", "root") }
func (l layout) layer() string {
	return filepath.Join(l.layers, l.rootfsHash+"-"+provisionKey())
}
func (l layout) engineUpper() string { return l.path("engine", l.rootfsHash, "upper") }
func (l layout) engineWork() string  { return l.path("engine", l.rootfsHash, "work") }

func (l layout) logs() string    { return l.path("logs") }
func (l layout) run() string     { return l.path("run") }
func (l layout) keys() string    { return l.path("keys") }
func (l layout) tokens() string  { return l.path("tokens") }
func (l layout) workers() string { return l.path("workers") }

// workersRoot is the root the workers run actions in: the build rootfs as
// it is on disk, read only, without what tools/bazel mounts into it (the
// workspaces, Bazel's output root), so that an action finds only its inputs
// and the rootfs's own files, as on a machine of its own.
func (l layout) workersRoot() string { return l.path("workers-root") }

func (l layout) pidFile(name string) string   { return filepath.Join(l.run(), name+".pid") }
func (l layout) readyFile(name string) string { return filepath.Join(l.run(), name+".ready") }
func (l layout) logFile(name string) string   { return filepath.Join(l.logs(), name+".log") }
func (l layout) tokenFile(subject string) string {
	return filepath.Join(l.tokens(), subject+".jwt")
}

// recorded is what `up` wrote down for `down` and `status`.
func (l layout) recorded(name string) string { return filepath.Join(l.run(), name) }

// Paths inside the engine root (as the engine sees them).
const (
	engineVarDir     = "/var/lib/cubridge-rexec"
	engineVenv       = "/opt/cubridge-buildgrid"
	enginePGData     = engineVarDir + "/pg"
	enginePGSock     = "/run/cubridge-rexec"
	engineCAS        = engineVarDir + "/cas"
	engineConfigFile = engineVarDir + "/bgd.yml"
	engineACL        = engineVarDir + "/acl.yml"
	engineJWTPub     = engineVarDir + "/jwt.pub"
	engineMarker     = engineVarDir + "/provisioned"
	engineReqs       = engineVarDir + "/requirements.txt"
	engineUser       = "buildgrid"
	pgUser           = "postgres"
	pgBin            = "/usr/lib/postgresql/18/bin"
	engineAPTConf    = "/etc/postgresql-common/createcluster.conf"
)

// inEngine is a path inside the engine root, seen from this machine.
func (l layout) inEngine(p string) string { return filepath.Join(l.engineRoot(), p) }

func (l layout) makeDirs() error {
	for _, d := range []string{l.logs(), l.run(), l.workers(), l.engineRoot(), l.engineUpper(), l.engineWork()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, d := range []string{l.keys(), l.tokens()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

func writeRecorded(l layout, name, value string) error {
	return os.WriteFile(l.recorded(name), []byte(value+"\n"), 0o644)
}

func readRecorded(l layout, name string) (string, error) {
	b, err := os.ReadFile(l.recorded(name))
	if err != nil {
		return "", err
	}
	s := string(b)
	if len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	if s == "" {
		return "", fmt.Errorf("%s is empty", l.recorded(name))
	}
	return s, nil
}
