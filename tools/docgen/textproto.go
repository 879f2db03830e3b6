package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// node is one message of a text-format protocol buffer: scalar fields in
// order, and nested messages by field name.
type node struct {
	scalars  map[string][]string
	children map[string][]*node
	order    []string // field names in first-seen order
}

func newNode() *node { return &node{scalars: map[string][]string{}, children: map[string][]*node{}} }

func (n *node) str(key string) string {
	if v := n.scalars[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (n *node) all(key string) []*node { return n.children[key] }

// parseTextproto reads the text format that starlark_doc_extract writes
// (<name>.textproto): `field: value` and `field { ... }`, strings in double
// quotes with C escapes, enums and numbers bare.
func parseTextproto(src string) (*node, error) {
	p := &tpParser{src: src}
	root, err := p.message(true)
	if err != nil {
		return nil, fmt.Errorf("textproto, offset %d: %v", p.pos, err)
	}
	return root, nil
}

type tpParser struct {
	src string
	pos int
}

func (p *tpParser) skip() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case unicode.IsSpace(rune(c)):
			p.pos++
		default:
			return
		}
	}
}

func (p *tpParser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := rune(p.src[p.pos])
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '.' || c == '-' || c == '+') {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *tpParser) message(top bool) (*node, error) {
	n := newNode()
	for {
		p.skip()
		if p.pos >= len(p.src) {
			if top {
				return n, nil
			}
			return nil, fmt.Errorf("unexpected end of input")
		}
		if p.src[p.pos] == '}' {
			if top {
				return nil, fmt.Errorf("unexpected }")
			}
			p.pos++
			return n, nil
		}
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("expected a field name, found %q", p.src[p.pos])
		}
		if _, seen := n.scalars[name]; !seen && n.children[name] == nil {
			n.order = append(n.order, name)
		}
		p.skip()
		if p.pos < len(p.src) && p.src[p.pos] == ':' {
			p.pos++
			p.skip()
		}
		if p.pos < len(p.src) && p.src[p.pos] == '{' {
			p.pos++
			child, err := p.message(false)
			if err != nil {
				return nil, err
			}
			n.children[name] = append(n.children[name], child)
			continue
		}
		value, err := p.value()
		if err != nil {
			return nil, err
		}
		n.scalars[name] = append(n.scalars[name], value)
	}
}

func (p *tpParser) value() (string, error) {
	if p.pos < len(p.src) && (p.src[p.pos] == '"' || p.src[p.pos] == '\'') {
		var b strings.Builder
		for p.pos < len(p.src) && (p.src[p.pos] == '"' || p.src[p.pos] == '\'') {
			quote := p.src[p.pos]
			start := p.pos
			p.pos++
			for p.pos < len(p.src) && p.src[p.pos] != quote {
				if p.src[p.pos] == '\\' {
					p.pos++
				}
				p.pos++
			}
			if p.pos >= len(p.src) {
				return "", fmt.Errorf("unterminated string")
			}
			p.pos++
			s, err := unquote(p.src[start+1:p.pos-1], quote)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
			p.skip() // adjacent strings concatenate
		}
		return b.String(), nil
	}
	v := p.ident()
	if v == "" {
		return "", fmt.Errorf("expected a value")
	}
	return v, nil
}

// unquote decodes the C-style escapes of the text format (\n, \", \', \\, octal, \xHH).
func unquote(s string, quote byte) (string, error) {
	if quote == '\'' {
		s = strings.ReplaceAll(strings.ReplaceAll(s, `\'`, `'`), `"`, `\"`)
	} else {
		s = strings.ReplaceAll(s, `\'`, `'`)
	}
	out, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		return "", fmt.Errorf("bad string %q: %v", s, err)
	}
	return out, nil
}
