package integration

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listener is a listening TCP socket and the process that holds it.
type listener struct {
	addr net.IP
	port int
	pid  int
	comm string
}

// listeners lists the listening TCP sockets of this machine (IPv4 and IPv6)
// with their processes.
func listeners(t *testing.T) []listener {
	owners := socketOwners(t)
	var out []listener
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			host, port, ok := strings.Cut(fields[1], ":")
			require.True(t, ok)
			ip := procIP(t, host)
			p, err := strconv.ParseInt(port, 16, 32)
			require.NoError(t, err)
			if pid, ok := owners[fields[9]]; ok {
				comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
				out = append(out, listener{ip, int(p), pid, strings.TrimSpace(string(comm))})
			}
		}
		f.Close()
	}
	return out
}

// procIP decodes /proc/net/tcp's address: 32-bit words in host (little
// endian) order.
func procIP(t *testing.T, h string) net.IP {
	b, err := hex.DecodeString(h)
	require.NoError(t, err)
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b)
}

// socketOwners maps socket inodes to the pid holding them.
func socketOwners(t *testing.T) map[string]int {
	owners := map[string]int{}
	procs, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name()))
			if err == nil && strings.HasPrefix(target, "socket:[") {
				owners[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = pid
			}
		}
	}
	return owners
}

// engineProcess says whether pid is one up started: it runs in the engine's
// root (BuildGrid, PostgreSQL) or is a worker.
func (e *engine) engineProcess(pid int) bool {
	root, err := os.Readlink(fmt.Sprintf("/proc/%d/root", pid))
	if err == nil && root == filepath.Join(e.state, "engine/root") {
		return true
	}
	workers, _ := filepath.Glob(filepath.Join(e.state, "run", "worker-*.pid"))
	for _, w := range workers {
		b, err := os.ReadFile(w)
		if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}

func testListeners(t *testing.T, e *engine) {
	found := false
	for _, l := range listeners(t) {
		if !e.engineProcess(l.pid) {
			continue
		}
		t.Logf("%s (pid %d) listens on %s:%d", l.comm, l.pid, l.addr, l.port)
		assert.True(t, l.addr.IsLoopback(), "%s (pid %d) listens on %s:%d, beyond loopback", l.comm, l.pid, l.addr, l.port)
		if l.port == e.port {
			found = true
		}
	}
	assert.True(t, found, "the engine's own port %d is among them", e.port)
}
