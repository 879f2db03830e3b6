package main

import (
	"fmt"
	"strings"
)

// The Go side: a package with two functions per kernel, one over Go slices
// (host memory: staged through the device on the GPU) and one over
// cubridge.Buffers on a cubridge.Stream, both through cubridge.Kernel. Its
// only cgo is the descriptor's address.

// goTypes are the dtypes Go has a type for (cubridge.Number).
var goTypes = map[string]bool{"float32": true, "float64": true, "int32": true, "int64": true}

// goSig is one kernel's Go signature pieces.
type goSig struct {
	typeParams []string          // "T float32 | float64"
	elem       map[*Param]string // array -> its element type (a type parameter or a Go type)
	dims       []string          // the dimension symbols given as Go parameters
	missing    string            // why the kernel has no Go functions ("" if it has)
}

// goSignature works out the type parameters and explicit dimensions of d.
func goSignature(d *Decl) goSig {
	sig := goSig{elem: map[*Param]string{}}
	used := map[string]bool{}
	for _, p := range d.Params {
		used[local(p.Name)] = true
	}
	letters := []string{"T", "U", "V", "W", "X", "Y", "Z", "T1", "T2", "T3", "T4", "T5"}
	next := 0
	for _, p := range d.Params {
		if !p.IsArray() {
			continue
		}
		if p.Like != nil {
			sig.elem[p] = sig.elem[p.Like]
			continue
		}
		var set []string
		for _, t := range p.DTypes {
			if goTypes[t] {
				set = append(set, t)
			}
		}
		switch len(set) {
		case 0:
			sig.missing = fmt.Sprintf("'%s' takes %s, which Go has no type for", p.Name, dtypeSetText(p.DTypes))
			return sig
		case 1:
			sig.elem[p] = set[0]
		default:
			for used[letters[next]] {
				next++
			}
			name := letters[next]
			next++
			sig.typeParams = append(sig.typeParams, name+" "+strings.Join(set, " | "))
			sig.elem[p] = name
		}
	}
	// Buffers and slices are flat: the symbols of multi-dimensional arrays
	// are parameters (unless an int scalar gives them).
	for i, s := range d.Dims {
		if setByScalar(d, s) {
			continue
		}
		for _, p := range d.Params {
			if !p.IsArray() || len(p.Shape) == 1 {
				continue
			}
			found := false
			for _, dim := range p.Shape {
				found = found || dim.Sym == i
			}
			if found {
				sig.dims = append(sig.dims, s)
				break
			}
		}
	}
	return sig
}

// genGo writes the Go package.
func genGo(decls []*Decl, pkg string) string {
	var b strings.Builder
	files := make([]string, len(decls))
	for i, d := range decls {
		files[i] = d.File
	}
	fmt.Fprintf(&b, "// "+generatedBy+"\n\n", strings.Join(files, ", "))
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = exported(d.Name)
	}
	fmt.Fprintf(&b, "// Package %s binds kernels declared for cubridge (%s): %s.\n", pkg, strings.Join(files, ", "), strings.Join(names, ", "))
	b.WriteString("// Each has a function over Go slices, which the library stages through device\n")
	b.WriteString("// memory when the kernel runs on the GPU, and one over cubridge.Buffers on a\n")
	b.WriteString("// cubridge.Stream. Errors are cubridge's (*cubridge.Error; errors.Is matches\n")
	b.WriteString("// cubridge.ErrInvalidArgument, cubridge.ErrUnsupportedDType, ...).\n")
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	b.WriteString("/*\n")
	for _, d := range decls {
		fmt.Fprintf(&b, "const void* %s_binding_address(void);\n", d.Name)
	}
	b.WriteString("*/\nimport \"C\"\n\n")
	b.WriteString("import \"github.com/cubridge/cubridge/go/cubridge\"\n\n")
	b.WriteString("var (\n")
	for _, d := range decls {
		fmt.Fprintf(&b, "\t%sKernel = cubridge.NewKernel(C.%s_binding_address())\n", local(d.Name), d.Name)
	}
	b.WriteString(")\n")
	for _, d := range decls {
		genGoKernel(&b, d)
	}
	return b.String()
}

func genGoKernel(b *strings.Builder, d *Decl) {
	sig := goSignature(d)
	name := exported(d.Name)
	if sig.missing != "" {
		fmt.Fprintf(b, "\n// %s has no Go function: %s.\n", d.Name, sig.missing)
		return
	}
	tparams := ""
	if len(sig.typeParams) > 0 {
		tparams = "[" + strings.Join(sig.typeParams, ", ") + "]"
	}
	dims := "nil"
	if len(d.Dims) > 0 {
		vals := make([]string, len(d.Dims))
		for i, s := range d.Dims {
			vals[i] = "-1"
			for _, g := range sig.dims {
				if g == s {
					vals[i] = local(s)
				}
			}
		}
		dims = "[]int{" + strings.Join(vals, ", ") + "}"
	}
	for _, buffers := range []bool{false, true} {
		var params, args []string
		for _, p := range d.Params {
			n := local(p.Name)
			switch {
			case p.Kind == kindFloat:
				params = append(params, n+" float64")
				args = append(args, "cubridge.FloatScalar("+n+")")
			case p.Kind == kindInt:
				params = append(params, n+" int")
				args = append(args, "cubridge.IntScalar(int64("+n+"))")
			case buffers:
				params = append(params, n+" *cubridge.Buffer["+sig.elem[p]+"]")
				args = append(args, n)
			default:
				params = append(params, n+" []"+sig.elem[p])
				args = append(args, "cubridge.Slice("+n+")")
			}
		}
		for _, s := range sig.dims {
			params = append(params, local(s)+" int")
		}
		stream := "nil"
		fn := name
		if buffers {
			params = append(params, "stream *cubridge.Stream")
			stream = "stream"
			fn += "Buffer"
		}
		b.WriteString("\n")
		if !buffers {
			if doc := docText(d); doc != "" {
				fmt.Fprintf(b, "// %s: %s\n//\n", fn, doc)
			} else {
				fmt.Fprintf(b, "// %s runs the kernel %s.\n//\n", fn, d.Name)
			}
			for _, p := range d.Params {
				fmt.Fprintf(b, "//   - %s: %s\n", local(p.Name), paramText(d, p))
			}
			if len(sig.dims) > 0 {
				fmt.Fprintf(b, "//\n// Slices are flat (row-major); %s give the shapes.\n", strings.Join(sig.dims, ", "))
			}
			b.WriteString("//\n// Slices are host memory; the call returns when the results are in them.\n")
		} else {
			fmt.Fprintf(b, "// %s is %s over Buffers, on stream (nil: the default stream),\n", fn, name)
			b.WriteString("// ordered after the work that wrote them; device work is asynchronous.\n")
		}
		fmt.Fprintf(b, "func %s%s(%s) error {\n", fn, tparams, strings.Join(params, ", "))
		fmt.Fprintf(b, "\treturn %sKernel.Call(%s, %s, %s)\n}\n", local(d.Name), stream, dims, strings.Join(args, ", "))
	}
}
