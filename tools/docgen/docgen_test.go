package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `module_docstring: "Public API.\n\n    load(...)"
rule_info {
  rule_name: "py_wheel"
  doc_string: "A wheel.\n    Second line | with a bar."
  attribute {
    name: "name"
    type: NAME
    mandatory: true
  }
  attribute {
    name: "platform"
    doc_string: "Platform tag, or \"auto\"."
    type: STRING
    default_value: "\"any\""
  }
  attribute {
    name: "_tool"
    type: LABEL
  }
  attribute {
    name: "distribution"
    doc_string: 'Name (it\'s mandatory).'
    type: STRING
    mandatory: true
  }
}
provider_info {
  provider_name: "PyWheelInfo"
  doc_string: "A built wheel."
  field_info {
    name: "wheel"
    doc_string: "File: the .whl"
  }
}
func_info {
  function_name: "py_extension"
  doc_string: "A CPython extension."
  parameter {
    name: "module"
    doc_string: "dotted name"
    mandatory: true
  }
  parameter {
    name: "limited_api"
    doc_string: "minimum CPython"
    default_value: "\"3.11\""
  }
  return {
    doc_string: "nothing"
  }
}
# a comment
`

func TestParseTextproto(t *testing.T) {
	m, err := parseTextproto(sample)
	require.NoError(t, err)
	assert.Equal(t, "Public API.\n\n    load(...)", m.str("module_docstring"))
	rules := m.all("rule_info")
	require.Len(t, rules, 1)
	assert.Equal(t, "py_wheel", rules[0].str("rule_name"))
	attrs := rules[0].all("attribute")
	require.Len(t, attrs, 4)
	assert.Equal(t, `Platform tag, or "auto".`, attrs[1].str("doc_string"))
	assert.Equal(t, `"any"`, attrs[1].str("default_value"))
	assert.Equal(t, "Name (it's mandatory).", attrs[3].str("doc_string"))

	_, err = parseTextproto("rule_info { rule_name: \"x\"")
	assert.ErrorContains(t, err, "unexpected end of input")
	_, err = parseTextproto("a: \"unterminated")
	assert.ErrorContains(t, err, "unterminated string")
}

func TestMarkdown(t *testing.T) {
	m, err := parseTextproto(sample)
	require.NoError(t, err)
	md := markdown(m, "Python rules", "@cubridge//toolchains/python:defs.bzl")
	for _, want := range []string{
		"## Python rules\n",
		"`load(\"@cubridge//toolchains/python:defs.bzl\", ...)`",
		"### `py_wheel` (rule)\n\nA wheel.\nSecond line | with a bar.\n",
		"| `platform` | string | `\"any\"` | Platform tag, or \"auto\". |",
		"| `distribution` | string | mandatory | Name (it's mandatory). |",
		"### `py_extension`\n",
		"| `module` | mandatory | dotted name |",
		"| `limited_api` | `\"3.11\"` | minimum CPython |",
		"Returns: nothing",
		"### `PyWheelInfo` (provider)",
		"| `wheel` | File: the .whl |",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "`_tool`", "private attributes stay out")
	assert.NotContains(t, md, "| `name` |", "the implicit name attribute stays out")
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	proto := filepath.Join(dir, "m.textproto")
	header := filepath.Join(dir, "h.md")
	require.NoError(t, os.WriteFile(proto, []byte(sample), 0o644))
	require.NoError(t, os.WriteFile(header, []byte("# Reference\n"), 0o644))
	out := filepath.Join(dir, "out.md")
	require.NoError(t, run([]string{"-out", out, "-header", header, "Python rules=@x//:defs.bzl=" + proto}))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "# Reference\n\n## Python rules\n"))
	assert.True(t, strings.HasSuffix(string(b), "|\n"))
	assert.ErrorContains(t, run([]string{"-out", out, "bad"}), `"bad" is not TITLE=LOAD_LABEL=FILE`)
	assert.ErrorContains(t, run([]string{"x=y=z"}), "usage")
}
