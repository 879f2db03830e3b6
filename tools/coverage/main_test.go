package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const report = `SF:cuda/src/a.cu
FNF:2
FNH:1
LF:10
LH:5
end_of_record
SF:cuda/src/b.h
LF:4
LH:4
end_of_record
SF:go/cubridge/x.go
LF:20
LH:15
end_of_record
`

func TestParseAndTable(t *testing.T) {
	files, err := parse(strings.NewReader(report))
	require.NoError(t, err)
	require.Len(t, files, 3)
	assert.Equal(t, counts{files: 1, lines: 10, linesHit: 5, functions: 2, funcsHit: 1}, files["cuda/src/a.cu"])

	md := markdown(files, "2026-11-28")
	assert.Contains(t, md, "| cuda/src | 2 | 14 | 64.3% | 50.0% |")
	assert.Contains(t, md, "| go/cubridge | 1 | 20 | 75.0% | - |")
	assert.Contains(t, md, "| **all** | 3 | 34 | **70.6%** | 50.0% |")
	assert.Less(t, strings.Index(md, "cuda/src"), strings.Index(md, "go/cubridge"), "sorted")
}

func TestParseRejectsARecordWithoutSource(t *testing.T) {
	_, err := parse(strings.NewReader("LF:1\nend_of_record\n"))
	assert.ErrorContains(t, err, "without SF")
}
