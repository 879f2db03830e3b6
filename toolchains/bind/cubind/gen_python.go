package main

import (
	"fmt"
	"path"
	"strings"
)

// The Python side: an extension module of one METH_FASTCALL function per
// kernel, each a call through cubridge's C API table (cubridge/python.h), and
// its .pyi stub.

// pySignature is the Python parameter list: every parameter but the out
// arrays in declared order, then keyword-only out arrays and stream.
func pySignature(d *Decl, typed bool) string {
	var ps, kw []string
	for _, p := range d.Params {
		t := ""
		if typed {
			t = map[int]string{kindIn: ": ArrayLike", kindInOut: ": ArrayLike", kindOut: ": Optional[ArrayLike]",
				kindFloat: ": float", kindInt: ": int"}[p.Kind]
		}
		if p.Kind == kindOut && typed {
			kw = append(kw, p.Name+t+" = None")
		} else if p.Kind == kindOut {
			kw = append(kw, p.Name+"=None")
		} else {
			ps = append(ps, p.Name+t)
		}
	}
	st := "stream=None"
	if typed {
		st = "stream: Stream = None"
	}
	return strings.Join(append(ps, append(append([]string{"*"}, kw...), st)...), ", ")
}

// returned is what the Python function returns: out arrays, else inout ones.
func returned(d *Decl) []*Param {
	var outs, inouts []*Param
	for _, p := range d.Params {
		switch p.Kind {
		case kindOut:
			outs = append(outs, p)
		case kindInOut:
			inouts = append(inouts, p)
		}
	}
	if len(outs) > 0 {
		return outs
	}
	return inouts
}

// pyDoc is the docstring: the doc paragraph, the parameters, what it returns.
func pyDoc(d *Decl) string {
	var b strings.Builder
	if doc := docText(d); doc != "" {
		b.WriteString(doc + "\n\n")
	}
	for _, p := range d.Params {
		fmt.Fprintf(&b, "%s: %s", p.Name, paramText(d, p))
		if p.Kind == kindOut {
			b.WriteString(" (None: allocated like the first array argument)")
		}
		b.WriteString("\n")
	}
	b.WriteString("stream: a CUDA stream (an int handle, or an object with __cuda_stream__, .ptr or .cuda_stream); None: the stream that produced the first array argument, else the default stream\n")
	ret := returned(d)
	names := make([]string, len(ret))
	for i, p := range ret {
		names[i] = p.Name
	}
	switch len(ret) {
	case 0:
		b.WriteString("Returns None.")
	case 1:
		fmt.Fprintf(&b, "Returns %s.", names[0])
	default:
		fmt.Fprintf(&b, "Returns (%s).", strings.Join(names, ", "))
	}
	return b.String()
}

// genPython writes the extension module `module`'s C source.
func genPython(decls []*Decl, headers []string, module string) string {
	var b strings.Builder
	files := make([]string, len(decls))
	for i, d := range decls {
		files[i] = d.File
	}
	leaf := module[strings.LastIndexByte(module, '.')+1:]
	fmt.Fprintf(&b, "/* "+generatedBy+" */\n", strings.Join(files, ", "))
	fmt.Fprintf(&b, "/* The extension %s: each kernel through cubridge's C API (cubridge/python.h). */\n", module)
	b.WriteString("#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n\n#include \"cubridge/python.h\"\n")
	for _, h := range headers {
		fmt.Fprintf(&b, "#include %q\n", path.Base(h))
	}
	b.WriteString("\n/* cubridge's table, imported when the module is. */\nstatic const cubridge_py_api* cubind_api;\n")
	for _, d := range decls {
		fmt.Fprintf(&b, "\nstatic PyObject* cubind_%s(PyObject* module, PyObject* const* args, Py_ssize_t nargs,\n", d.Name)
		fmt.Fprintf(&b, "                           PyObject* kwnames) {\n  (void)module;\n")
		fmt.Fprintf(&b, "  return cubind_api->call(cubind_api, &%s_binding, args, nargs, kwnames);\n}\n", d.Name)
	}
	b.WriteString("\nstatic PyMethodDef cubind_methods[] = {\n")
	for _, d := range decls {
		doc := fmt.Sprintf("%s($module, %s)\n--\n\n%s", d.Name, pySignature(d, false), pyDoc(d))
		fmt.Fprintf(&b, "    {%s, (PyCFunction)(void (*)(void))cubind_%s, METH_FASTCALL | METH_KEYWORDS,\n     %s},\n",
			cString(d.Name), d.Name, cString(doc))
	}
	b.WriteString("    {NULL, NULL, 0, NULL},\n};\n\n")
	b.WriteString("static int cubind_exec(PyObject* module) {\n  (void)module;\n")
	b.WriteString("  cubind_api = cubridge_py_import();\n  return cubind_api != NULL ? 0 : -1;\n}\n\n")
	b.WriteString("static PyModuleDef_Slot cubind_slots[] = {{Py_mod_exec, cubind_exec}, {0, NULL}};\n\n")
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.Name
	}
	fmt.Fprintf(&b, "static struct PyModuleDef cubind_module = {\n    PyModuleDef_HEAD_INIT,\n    .m_name = %s,\n", cString(module))
	fmt.Fprintf(&b, "    .m_doc = %s,\n", cString("Kernels bound by cubridge (cubind): "+strings.Join(names, ", ")+"."))
	b.WriteString("    .m_size = 0,\n    .m_methods = cubind_methods,\n    .m_slots = cubind_slots,\n};\n\n")
	fmt.Fprintf(&b, "PyMODINIT_FUNC PyInit_%s(void) { return PyModuleDef_Init(&cubind_module); }\n", leaf)
	return b.String()
}

// genStub writes the module's .pyi.
func genStub(decls []*Decl, module string) string {
	var b strings.Builder
	files := make([]string, len(decls))
	for i, d := range decls {
		files[i] = d.File
	}
	fmt.Fprintf(&b, "# "+generatedBy+"\n", strings.Join(files, ", "))
	fmt.Fprintf(&b, "\"\"\"The extension %s: kernels bound by cubridge.\"\"\"\n\n", module)
	b.WriteString("from typing import Any, Optional\n\n")
	b.WriteString("# NumPy, torch, CuPy and JAX arrays, cubridge.Array, or anything with __dlpack__,\n")
	b.WriteString("# __cuda_array_interface__ or the buffer protocol.\nArrayLike = Any\n")
	b.WriteString("# An int cudaStream_t, or an object with __cuda_stream__, .ptr or .cuda_stream.\nStream = Any\n")
	for _, d := range decls {
		ret := "None"
		switch n := len(returned(d)); {
		case n == 1:
			ret = "ArrayLike"
		case n > 1:
			ret = "tuple[" + strings.TrimSuffix(strings.Repeat("ArrayLike, ", n), ", ") + "]"
		}
		fmt.Fprintf(&b, "\ndef %s(%s) -> %s:\n", d.Name, pySignature(d, true), ret)
		fmt.Fprintf(&b, "    %s\n", pyDocString(pyDoc(d)))
		b.WriteString("    ...\n")
	}
	return b.String()
}

// pyDocString is a triple-quoted docstring of text, indented for a function body.
func pyDocString(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, `\`, `\\`), `"""`, `\"\"\"`)
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "    " + lines[i]
		}
	}
	return `"""` + strings.Join(lines, "\n") + "\n    " + `"""`
}
