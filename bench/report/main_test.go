package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArgs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	ws := env(map[string]string{"BUILD_WORKSPACE_DIRECTORY": "/ws"})

	o, err := parseArgs(nil, ws)
	require.NoError(t, err)
	assert.Equal(t, "/ws/bench/results", o.out)
	assert.Equal(t, "python3", o.python)
	assert.Empty(t, o.benchArgs)

	o, err = parseArgs([]string{"--quick", "--out=tmp/r", "--python=python3.13", "--skip-go", "--", "--libs", "cubridge,numpy"}, ws)
	require.NoError(t, err)
	assert.Equal(t, "/ws/tmp/r", o.out)
	assert.Equal(t, "python3.13", o.python)
	assert.True(t, o.skipGo)
	assert.Equal(t, []string{"--quick", "--libs", "cubridge,numpy"}, o.benchArgs)

	o, err = parseArgs([]string{"--out=/abs"}, env(nil))
	require.NoError(t, err)
	assert.Equal(t, "/abs", o.out)

	_, err = parseArgs(nil, env(nil))
	assert.ErrorContains(t, err, "bazel run //bench:report")
	_, err = parseArgs([]string{"--libs", "x"}, ws)
	assert.ErrorContains(t, err, `unknown option "--libs" (bench.py's options go after --)`)
}
