package main

import (
	"strconv"
	"strings"
	"unicode"
)

// exported is a Go exported name for a snake_case name: "matmul_f32" -> "MatmulF32".
func exported(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		r := []rune(part)
		b.WriteRune(unicode.ToUpper(r[0]))
		b.WriteString(string(r[1:]))
	}
	if b.Len() == 0 {
		return "X" + name
	}
	return b.String()
}

// local is a Go local name for a snake_case name: "x_in" -> "xIn"; names the
// generated code uses itself get a trailing underscore.
func local(name string) string {
	e := exported(name)
	r := []rune(e)
	r[0] = unicode.ToLower(r[0])
	s := string(r)
	switch s {
	case "cubridge", "unsafe", "stream", "kernel":
		return s + "_"
	}
	return s
}

// dtypeSetText is "float32 or float64".
func dtypeSetText(set []string) string {
	switch len(set) {
	case 0:
		return "no dtype"
	case 1:
		return set[0]
	}
	return strings.Join(set[:len(set)-1], ", ") + " or " + set[len(set)-1]
}

// shapeText is "[m,k]" for an array parameter.
func shapeText(d *Decl, p *Param) string {
	parts := make([]string, len(p.Shape))
	for i, dim := range p.Shape {
		if dim.Sym >= 0 {
			parts[i] = d.Dims[dim.Sym]
		} else {
			parts[i] = strconv.Itoa(dim.Size)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// accessText says what the kernel does with an array.
func accessText(p *Param) string {
	switch p.Kind {
	case kindIn:
		return "read"
	case kindOut:
		return "written"
	default:
		return "read and written"
	}
}

// paramText describes a parameter in one line: "float32 or float64 [n], read".
func paramText(d *Decl, p *Param) string {
	switch p.Kind {
	case kindFloat:
		return "float scalar"
	case kindInt:
		if p.SetsDim >= 0 {
			return "int scalar, the size " + d.Dims[p.SetsDim]
		}
		return "int scalar"
	}
	types := dtypeSetText(p.DTypes)
	if p.Like != nil {
		types = "the dtype of " + p.Like.Name
	}
	return types + " " + shapeText(d, p) + ", " + accessText(p)
}

// docText is the declaration's doc paragraph.
func docText(d *Decl) string {
	return strings.TrimSpace(strings.Join(d.Doc, " "))
}

// cString is s as a C string literal.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			if r < 0x20 {
				b.WriteString(" ")
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
