package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"net"
	"os"
	"text/template"
)

//go:embed bgd.yml.tmpl
var bgdTemplate string

//go:embed acl.yml.tmpl
var aclTemplate string

// engineConfig is what the BuildGrid configuration is made of. Paths are
// inside the engine root.
type engineConfig struct {
	Address          string // host:port, host 127.0.0.1
	Instance         string
	RootfsHash       string
	GPUCounts        []int // one scheduling label per GPU count a worker may offer
	KeepaliveSeconds int
	ThreadPool       int // threads serving RPCs; a waiting Execute stream holds one
	MaxRPCs          int // RPCs accepted at once; beyond ThreadPool they queue
	User             string
	PGSocket         string
	CAS              string
	JWTPublicKey     string
	ACL              string
	Audience         string
}

func (c engineConfig) check() error {
	host, port, err := net.SplitHostPort(c.Address)
	if err != nil {
		return fmt.Errorf("address %q: %w", c.Address, err)
	}
	if host != "127.0.0.1" {
		return fmt.Errorf("address %q: the engine listens on 127.0.0.1 only", c.Address)
	}
	if port == "" || port == "0" {
		return fmt.Errorf("address %q: a fixed port is needed (Bazel is pointed at it)", c.Address)
	}
	if c.KeepaliveSeconds < 5 {
		return fmt.Errorf("bot keepalive of %ds: at least 5 s (workers long-poll for 80%% of it)", c.KeepaliveSeconds)
	}
	if c.ThreadPool < 1 || c.MaxRPCs < c.ThreadPool {
		return fmt.Errorf("%d threads, %d RPCs at once: at least one thread, and RPCs beyond the threads queue, never refused", c.ThreadPool, c.MaxRPCs)
	}
	if !validName(c.Instance) {
		return fmt.Errorf("instance name %q: use letters, digits, '-' and '_'", c.Instance)
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func render(tmpl string, c engineConfig) ([]byte, error) {
	t, err := template.New("config").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, c); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// writeConfigs writes the engine's configuration and ACL into its root.
func writeConfigs(l layout, c engineConfig) error {
	if err := c.check(); err != nil {
		return err
	}
	for _, f := range []struct{ tmpl, path string }{{bgdTemplate, engineConfigFile}, {aclTemplate, engineACL}} {
		data, err := render(f.tmpl, c)
		if err != nil {
			return err
		}
		if err := os.WriteFile(l.inEngine(f.path), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
