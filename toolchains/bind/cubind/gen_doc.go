package main

import (
	"fmt"
	"strings"
)

// genDoc writes the bindings' reference page (Markdown).
func genDoc(decls []*Decl, module, importpath, pkg string) string {
	var b strings.Builder
	files := make([]string, len(decls))
	for i, d := range decls {
		files[i] = d.File
	}
	fmt.Fprintf(&b, "<!-- "+generatedBy+" -->\n\n", strings.Join(files, ", "))
	fmt.Fprintf(&b, "# Kernels of %s\n\n", strings.Join(files, ", "))
	fmt.Fprintf(&b, "Python: `import %s`. Go: `import %q` (package %s). C/C++: `<name>_call` in the\n", module, importpath, pkg)
	b.WriteString("generated header, linked with cubridge's library. Bound by cubridge: see its docs/bind.md.\n")
	for _, d := range decls {
		fmt.Fprintf(&b, "\n## %s\n\n", d.Name)
		if doc := docText(d); doc != "" {
			b.WriteString(doc + "\n\n")
		}
		b.WriteString("| parameter | kind | dtypes | shape |\n|---|---|---|---|\n")
		for _, p := range d.Params {
			kind := map[int]string{kindIn: "in", kindOut: "out", kindInOut: "inout", kindFloat: "float", kindInt: "int"}[p.Kind]
			types, shape := "", ""
			if p.IsArray() {
				types = dtypeSetText(p.DTypes)
				if p.Like != nil {
					types = "like " + p.Like.Name
				}
				shape = "`" + shapeText(d, p) + "`"
			} else if p.SetsDim >= 0 {
				shape = "sizes " + d.Dims[p.SetsDim]
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Name, kind, types, shape)
		}
		fmt.Fprintf(&b, "\nHost arrays: %s.", map[string]string{
			"stage": "staged through device memory on the GPU (the kernel sees device arrays); on the CPU backend the kernel runs on the host",
			"cpu":   "given to the kernel as they are, to run on the host"}[d.Host])
		fmt.Fprintf(&b, " Python results: %s.\n\n", map[string]string{
			"array":  "cubridge.Array for device arrays, numpy.ndarray for host arrays",
			"caller": "the first array argument's library's array (torch, CuPy, JAX), numpy.ndarray for host arrays"}[d.Result])
		fmt.Fprintf(&b, "```python\n%s.%s(%s)\n```\n\n", module, d.Name, pySignature(d, false))
		sig := goSignature(d)
		if sig.missing != "" {
			fmt.Fprintf(&b, "Go: none (%s).\n\n", sig.missing)
		} else {
			fmt.Fprintf(&b, "Go: `%s.%s` (slices), `%s.%sBuffer` (Buffers and a Stream).\n\n", pkg, exported(d.Name), pkg, exported(d.Name))
		}
		fmt.Fprintf(&b, "The entry point (C, in your `.cu`):\n\n```c\n%s;\n```\n", entryPrototype(d))
	}
	return b.String()
}
