package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A declaration (docs/bind.md), one kernel per file, one statement per line:
//
//	# y = a*x + y over float arrays
//	kernel saxpy                  # its name in Python and C (Go: Saxpy)
//	entry  saxpy_entry            # the C entry point in your .cu
//	doc    y = a*x + y, in place. # may repeat: one paragraph
//	in     x  float32|float64 [n] # an array the kernel reads: dtypes, shape
//	inout  y  like x          [n] # read and written, x's dtype
//	scalar a  float               # float (a C double) or int (int64_t)
//	host   stage                  # host arrays: stage (default) | cpu
//	result array                  # Python results: array (default) | caller
//
// Parameters keep their order in every binding. A dimension symbol (n) takes
// its size where it first appears; an int scalar of the same name gives it.

// dtypes are the library's (cubridge.h), by name.
var dtypes = map[string]int{
	"float32": 0, "float64": 1, "int32": 2, "int64": 3, "float16": 4, "bfloat16": 5,
}

var dtypeOrder = []string{"float32", "float64", "int32", "int64", "float16", "bfloat16"}

// Limits of cubridge/bind.h.
const (
	maxParams = 16
	maxArrays = 8
	maxNdim   = 8
	maxDims   = 16
)

// Param kinds, as cubridge/bind.h numbers them.
const (
	kindIn    = 1
	kindOut   = 2
	kindInOut = 3
	kindFloat = 4
	kindInt   = 5
)

// Decl is one kernel's declaration.
type Decl struct {
	File   string // as given on the command line, for messages and the descriptor
	Line   int    // of the kernel statement
	Name   string
	Entry  string
	Doc    []string
	Host   string // "stage" | "cpu"
	Result string // "array" | "caller"
	Params []*Param
	Dims   []string // symbols, in order of first appearance
}

// Param is a parameter: an array (kind in, out, inout) or a scalar.
type Param struct {
	Line    int
	Name    string
	Kind    int
	DTypes  []string // arrays without like: the set, in the library's order
	Like    *Param   // arrays: the parameter whose dtype this one has
	Shape   []Dim    // arrays
	SetsDim int      // int scalars: the symbol they size, or -1
	Index   int

	syms []string // the symbols of Shape, in order, while parsing
}

// Dim is one dimension of a declared shape: a fixed size, or a symbol.
type Dim struct {
	Size int // when Sym < 0
	Sym  int // index into Decl.Dims, or -1
}

// IsArray reports whether p is an array parameter.
func (p *Param) IsArray() bool { return p.Kind <= kindInOut }

// Writes reports whether the kernel writes the array p.
func (p *Param) Writes() bool { return p.Kind == kindOut || p.Kind == kindInOut }

// DTypeSet is p's dtypes, following like.
func (p *Param) DTypeSet() []string {
	for p.Like != nil {
		p = p.Like
	}
	return p.DTypes
}

// declError is an error at a line of a declaration file: "file:line: msg".
type declError struct {
	file string
	line int
	msg  string
}

func (e *declError) Error() string {
	if e.line == 0 {
		return fmt.Sprintf("%s: %s", e.file, e.msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are names a parameter or symbol may not take: they are keywords
// of C, Go or Python, or the stream every binding adds.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`stream
		break case chan const continue default defer else fallthrough for func go goto if
		import interface map package range return select struct switch type var
		False None True and as assert async await class def del elif except finally from
		global in is lambda nonlocal not or pass raise try while with yield
		auto char do double enum extern float int long register short signed sizeof static
		union unsigned void volatile launch error`) {
		reserved[w] = true
	}
}

// parseDecl parses one declaration file's text.
func parseDecl(file, text string) (*Decl, error) {
	d := &Decl{File: file, Host: "stage", Result: "array"}
	errf := func(line int, format string, args ...any) error {
		return &declError{file, line, fmt.Sprintf(format, args...)}
	}
	byName := map[string]*Param{}
	symLine := map[string]int{}
	seen := map[string]int{}
	for i, raw := range strings.Split(text, "\n") {
		line := i + 1
		if j := strings.IndexByte(raw, '#'); j >= 0 {
			raw = raw[:j]
		}
		fields := strings.Fields(raw)
		if len(fields) == 0 {
			continue
		}
		key, rest := fields[0], strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(raw), fields[0]))
		once := func() error {
			if prev, ok := seen[key]; ok {
				return errf(line, "a second '%s' statement (the first is on line %d)", key, prev)
			}
			seen[key] = line
			return nil
		}
		switch key {
		case "kernel", "entry":
			if err := once(); err != nil {
				return nil, err
			}
			if len(fields) != 2 || !identRE.MatchString(fields[1]) {
				return nil, errf(line, "'%s' takes one C identifier, got %q", key, rest)
			}
			if key == "kernel" {
				d.Name, d.Line = fields[1], line
			} else {
				d.Entry = fields[1]
			}
		case "doc":
			d.Doc = append(d.Doc, rest)
		case "host", "result":
			if err := once(); err != nil {
				return nil, err
			}
			allowed := map[string][]string{"host": {"stage", "cpu"}, "result": {"array", "caller"}}[key]
			if len(fields) != 2 || (fields[1] != allowed[0] && fields[1] != allowed[1]) {
				return nil, errf(line, "'%s' is %s or %s, got %q", key, allowed[0], allowed[1], rest)
			}
			if key == "host" {
				d.Host = fields[1]
			} else {
				d.Result = fields[1]
			}
		case "in", "out", "inout", "scalar":
			p, err := parseParam(key, rest, line, byName, errf)
			if err != nil {
				return nil, err
			}
			if prev, ok := byName[p.Name]; ok {
				return nil, errf(line, "parameter '%s' is declared twice (first on line %d)", p.Name, prev.Line)
			}
			p.Index = len(d.Params)
			d.Params = append(d.Params, p)
			byName[p.Name] = p
			for _, s := range p.syms {
				if _, ok := symLine[s]; !ok {
					symLine[s] = line
					d.Dims = append(d.Dims, s)
				}
			}
		default:
			return nil, errf(line, "unknown statement '%s' (kernel, entry, doc, in, out, inout, scalar, host, result)", key)
		}
	}
	if d.Name == "" {
		return nil, errf(0, "no 'kernel NAME' statement")
	}
	if d.Entry == "" {
		return nil, errf(d.Line, "kernel '%s' has no 'entry C_FUNCTION' statement", d.Name)
	}
	return d, finishDecl(d, byName, symLine, errf)
}

// parseParam parses "NAME DTYPES [DIMS]" (arrays) or "NAME float|int" (scalars).
func parseParam(key, rest string, line int, byName map[string]*Param, errf func(int, string, ...any) error) (*Param, error) {
	p := &Param{Line: line, SetsDim: -1}
	p.Kind = map[string]int{"in": kindIn, "out": kindOut, "inout": kindInOut}[key]
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return nil, errf(line, "'%s' needs a parameter name", key)
	}
	p.Name = fields[0]
	if !identRE.MatchString(p.Name) || reserved[p.Name] {
		return nil, errf(line, "'%s' cannot name a parameter (an identifier that is no keyword of C, Go or Python, and not 'stream')", p.Name)
	}
	if key == "scalar" {
		if len(fields) != 2 || (fields[1] != "float" && fields[1] != "int") {
			return nil, errf(line, "scalar '%s' is 'float' or 'int', got %q", p.Name, strings.Join(fields[1:], " "))
		}
		p.Kind = kindFloat
		if fields[1] == "int" {
			p.Kind = kindInt
		}
		return p, nil
	}
	spec := strings.TrimSpace(strings.TrimPrefix(rest, p.Name))
	open := strings.LastIndexByte(spec, '[')
	if open < 0 || !strings.HasSuffix(spec, "]") {
		return nil, errf(line, "array '%s' needs a shape in brackets after its dtypes, e.g. [n] or [m,k]", p.Name)
	}
	types, shape := strings.TrimSpace(spec[:open]), spec[open+1:len(spec)-1]
	if like, ok := strings.CutPrefix(types, "like "); ok {
		like = strings.TrimSpace(like)
		q, found := byName[like]
		if !found || !q.IsArray() {
			return nil, errf(line, "'%s' is like '%s', which is no array declared above", p.Name, like)
		}
		p.Like = q
	} else {
		set := map[string]bool{}
		for _, t := range strings.Split(types, "|") {
			t = strings.TrimSpace(t)
			if _, ok := dtypes[t]; !ok {
				return nil, errf(line, "unknown dtype %q for '%s' (dtypes: %s; or 'like NAME')", t, p.Name, strings.Join(dtypeOrder, ", "))
			}
			if set[t] {
				return nil, errf(line, "dtype %s is listed twice for '%s'", t, p.Name)
			}
			set[t] = true
		}
		for _, t := range dtypeOrder {
			if set[t] {
				p.DTypes = append(p.DTypes, t)
			}
		}
	}
	if strings.TrimSpace(shape) != "" {
		for _, s := range strings.Split(shape, ",") {
			s = strings.TrimSpace(s)
			if n, err := strconv.Atoi(s); err == nil && n >= 0 {
				p.Shape = append(p.Shape, Dim{Size: n, Sym: -1})
				continue
			}
			if !identRE.MatchString(s) || reserved[s] {
				return nil, errf(line, "dimension %q of '%s' is neither a size nor a symbol name", s, p.Name)
			}
			p.Shape = append(p.Shape, Dim{Sym: -2})
			p.syms = append(p.syms, s)
		}
	}
	if len(p.Shape) > maxNdim {
		return nil, errf(line, "'%s' has %d dimensions; at most %d", p.Name, len(p.Shape), maxNdim)
	}
	return p, nil
}

// finishDecl resolves dimension symbols and checks what spans statements.
func finishDecl(d *Decl, byName map[string]*Param, symLine map[string]int, errf func(int, string, ...any) error) error {
	symIndex := map[string]int{}
	for i, s := range d.Dims {
		symIndex[s] = i
	}
	arrays := 0
	for _, p := range d.Params {
		if !p.IsArray() {
			if i, ok := symIndex[p.Name]; ok {
				if p.Kind != kindInt {
					return errf(p.Line, "'%s' sizes a dimension (line %d), so it must be an int scalar", p.Name, symLine[p.Name])
				}
				p.SetsDim = i
			}
			continue
		}
		arrays++
		k := 0
		for j := range p.Shape {
			if p.Shape[j].Sym == -2 {
				name := p.syms[k]
				k++
				p.Shape[j].Sym = symIndex[name]
				if q, ok := byName[name]; ok && q.IsArray() {
					return errf(p.Line, "dimension '%s' of '%s' has the name of an array parameter", name, p.Name)
				}
			}
		}
	}
	switch {
	case arrays == 0:
		return errf(d.Line, "kernel '%s' has no array parameter (in, out or inout)", d.Name)
	case arrays > maxArrays:
		return errf(d.Line, "kernel '%s' has %d arrays; at most %d", d.Name, arrays, maxArrays)
	case len(d.Params) > maxParams:
		return errf(d.Line, "kernel '%s' has %d parameters; at most %d", d.Name, len(d.Params), maxParams)
	case len(d.Dims) > maxDims:
		return errf(d.Line, "kernel '%s' has %d dimension symbols; at most %d", d.Name, len(d.Dims), maxDims)
	}
	for _, s := range d.Dims {
		if q, ok := byName[s]; ok && !q.IsArray() && q.Kind != kindInt {
			return errf(q.Line, "'%s' sizes a dimension, so it must be an int scalar", s)
		}
	}
	return nil
}
