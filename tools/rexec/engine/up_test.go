package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBazelHintNamesTheConfigThePortAndTheState(t *testing.T) {
	o := upOptions{workers: 2, port: defaultPort}
	assert.Equal(t, "tools/bazel build --config=rexec ...", bazelHint(o, "/c/rexec", "/c/rexec"))

	o = upOptions{gpuWorkers: 1, port: 18990}
	assert.Equal(t, "tools/bazel build --config=rexec --remote_executor=grpc://127.0.0.1:18990 ...",
		bazelHint(o, "/c/rexec", "/c/rexec"))

	// No workers: a cache only.
	o = upOptions{port: 18990}
	assert.Equal(t, "CUBRIDGE_REXEC_DIR=/tmp/s tools/bazel build --config=rexec-cache --remote_cache=grpc://127.0.0.1:18990 ...",
		bazelHint(o, "/tmp/s", "/c/rexec"))
}
