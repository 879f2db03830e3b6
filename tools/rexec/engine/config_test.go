package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testConfig() engineConfig {
	return engineConfig{
		Address: "127.0.0.1:8980", Instance: "main", RootfsHash: "896046f8babe",
		GPUCounts: []int{1, 2}, KeepaliveSeconds: 30, ThreadPool: 50, MaxRPCs: 800, User: "buildgrid",
		PGSocket: enginePGSock, CAS: engineCAS, JWTPublicKey: engineJWTPub, ACL: engineACL, Audience: audience,
	}
}

func TestConfigSchedulesGPUWorkersApart(t *testing.T) {
	out, err := render(bgdTemplate, testConfig())
	require.NoError(t, err)
	s := string(out)
	assert.Contains(t, s, `address: "127.0.0.1:8980"`)
	assert.Contains(t, s, "method: jwt")
	assert.Contains(t, s, "allow-localhost-requests: false")
	assert.Contains(t, s, "host=/run/cubridge-rexec")
	for _, label := range []string{"label: cpu", "label: gpu1", "label: gpu2"} {
		assert.Contains(t, s, label)
	}
	assert.Contains(t, s, `- [gpu, "2"]`)
	assert.Contains(t, s, "exclusive-property-keys: [gpu]")
	assert.Equal(t, 3, strings.Count(s, `[cubridge-rootfs, "896046f8babe"]`))
	// RPCs beyond the threads queue: BuildGrid refuses those over its limit.
	assert.Contains(t, s, "thread-pool-size: 50\n")
	assert.Contains(t, s, "maximum-concurrent-rpcs: 800\n")
}

func TestConfigCheckQueuesRPCsBeyondTheThreads(t *testing.T) {
	c := testConfig()
	c.MaxRPCs = c.ThreadPool - 1
	assert.ErrorContains(t, c.check(), "never refused")
	c.ThreadPool, c.MaxRPCs = 0, 0
	assert.Error(t, c.check())
}

func TestConfigCheckKeepsTheEngineOnLoopback(t *testing.T) {
	require.NoError(t, testConfig().check())
	for _, addr := range []string{"0.0.0.0:8980", "[::]:8980", "localhost:8980", "127.0.0.1:0", "127.0.0.1"} {
		c := testConfig()
		c.Address = addr
		assert.Error(t, c.check(), addr)
	}
	c := testConfig()
	c.Instance = "main/../x"
	assert.Error(t, c.check())
	c = testConfig()
	c.KeepaliveSeconds = 2
	assert.Error(t, c.check())
}

func TestACLSeparatesBazelFromWorkers(t *testing.T) {
	out, err := render(aclTemplate, testConfig())
	require.NoError(t, err)
	s := string(out)
	bazel := s[strings.Index(s, `"^bazel$"`):strings.Index(s, `"^worker$"`)]
	worker := s[strings.Index(s, `"^worker$"`):]
	assert.Contains(t, bazel, "Execute")
	assert.NotContains(t, bazel, "BotSession")
	assert.Contains(t, worker, "UpdateBotSession")
	assert.NotContains(t, worker, "Execute")
	assert.NotContains(t, worker, "UpdateActionResult")
}

func TestProvisionKeyIgnoresComments(t *testing.T) {
	assert.Equal(t, withoutComments("# a\nx==1 \\\n  --hash=sha256:00\n\n"), withoutComments("x==1 \\\n# b\n--hash=sha256:00\n"))
	assert.NotEqual(t, withoutComments("x==1\n"), withoutComments("x==2\n"))
}
