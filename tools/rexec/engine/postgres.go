package main

import (
	"fmt"
	"os"
	"strings"
)

// PostgreSQL 18 as a private cluster inside the engine's root: its own data
// directory, no TCP listener, one Unix socket, peer authentication (the OS
// user is the database role).

func pgConnString() string {
	return fmt.Sprintf("postgresql+psycopg://%s@/%s?host=%s", engineUser, engineUser, enginePGSock)
}

// startPostgres initialises the cluster once, starts it, and makes the
// engine's role and database.
func startPostgres(l layout) error {
	root := l.engineRoot()
	pg, err := lookupUser(root, pgUser)
	if err != nil {
		return err
	}
	// The data is PostgreSQL's alone; the socket's directory is open to the
	// engine's user (peer authentication decides who is who).
	for d, mode := range map[string]os.FileMode{enginePGData: 0o700, enginePGSock: 0o755} {
		if err := os.MkdirAll(l.inEngine(d), mode); err != nil {
			return err
		}
		if err := os.Chmod(l.inEngine(d), mode); err != nil {
			return err
		}
		if err := os.Chown(l.inEngine(d), int(pg.uid), int(pg.gid)); err != nil {
			return err
		}
	}
	if _, err := os.Stat(l.inEngine(enginePGData + "/PG_VERSION")); os.IsNotExist(err) {
		if _, err := runInRoot(root, &pg, nil, pgBin+"/initdb", "--pgdata", enginePGData, "--username", pgUser,
			"--auth-local", "peer", "--auth-host", "reject", "--encoding", "UTF8", "--locale", "C.UTF-8",
			"--no-instructions"); err != nil {
			return err
		}
	}
	if _, err := runInRoot(root, &pg, nil, pgBin+"/pg_ctl", "--pgdata", enginePGData, "status"); err != nil {
		if _, err := runInRoot(root, &pg, nil, pgBin+"/pg_ctl", "--pgdata", enginePGData,
			"--log", enginePGData+"/server.log", "--wait", "--timeout", "60",
			"-o", "-c listen_addresses='' -c unix_socket_directories="+enginePGSock, "start"); err != nil {
			return err
		}
	}
	psql := func(sql string) (string, error) {
		out, err := runInRoot(root, &pg, nil, "/usr/bin/psql", "--host", enginePGSock, "--username", pgUser,
			"--no-psqlrc", "--tuples-only", "--no-align", "--quiet", "--command", sql)
		return strings.TrimSpace(string(out)), err
	}
	if out, err := psql("SELECT 1 FROM pg_roles WHERE rolname = '" + engineUser + "'"); err != nil {
		return err
	} else if out != "1" {
		if _, err := psql("CREATE ROLE " + engineUser + " LOGIN"); err != nil {
			return err
		}
	}
	if out, err := psql("SELECT 1 FROM pg_database WHERE datname = '" + engineUser + "'"); err != nil {
		return err
	} else if out != "1" {
		if _, err := psql("CREATE DATABASE " + engineUser + " OWNER " + engineUser); err != nil {
			return err
		}
	}
	return nil
}

// stopPostgres stops the cluster if it runs (fast: rolls back open work).
func stopPostgres(l layout) error {
	root := l.engineRoot()
	if _, err := os.Stat(l.inEngine(enginePGData + "/postmaster.pid")); err != nil {
		return nil
	}
	pg, err := lookupUser(root, pgUser)
	if err != nil {
		return err
	}
	if _, err := runInRoot(root, &pg, nil, pgBin+"/pg_ctl", "--pgdata", enginePGData, "status"); err != nil {
		return nil // not running
	}
	_, err = runInRoot(root, &pg, nil, pgBin+"/pg_ctl", "--pgdata", enginePGData, "--mode", "fast", "--wait", "stop")
	return err
}
