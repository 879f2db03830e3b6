package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	code := run(&out)
	t.Log("\n" + out.String())
	assert.Equal(t, 0, code)
	assert.Contains(t, out.String(), "backend: ")
	assert.Contains(t, out.String(), "self-check: all passed")
	assert.NotContains(t, out.String(), "FAIL")
}
