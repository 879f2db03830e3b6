package main

import (
	"fmt"
	"sort"
	"strings"
)

// markdown renders one module's documentation (a stardoc ModuleInfo, as
// starlark_doc_extract writes it): providers, rules, aspects and functions.
func markdown(module *node, title, loadLabel string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", title)
	if loadLabel != "" {
		fmt.Fprintf(&b, "`load(\"%s\", ...)`\n\n", loadLabel)
	}
	if d := strings.TrimSpace(module.str("module_docstring")); d != "" {
		b.WriteString(d + "\n\n")
	}
	for _, r := range sorted(module.all("rule_info"), "rule_name") {
		fmt.Fprintf(&b, "### `%s` (rule)\n\n", r.str("rule_name"))
		writeDoc(&b, r.str("doc_string"))
		writeAttributes(&b, r.all("attribute"))
	}
	for _, m := range sorted(module.all("macro_info"), "macro_name") {
		fmt.Fprintf(&b, "### `%s` (macro)\n\n", m.str("macro_name"))
		writeDoc(&b, m.str("doc_string"))
		writeAttributes(&b, m.all("attribute"))
	}
	for _, f := range sorted(module.all("func_info"), "function_name") {
		fmt.Fprintf(&b, "### `%s`\n\n", f.str("function_name"))
		writeDoc(&b, f.str("doc_string"))
		var rows [][]string
		for _, p := range f.all("parameter") {
			rows = append(rows, []string{"`" + p.str("name") + "`", code(defaultOf(p)), cell(p.str("doc_string"))})
		}
		writeTable(&b, []string{"parameter", "default", "meaning"}, rows)
		for _, r := range f.all("return") {
			if d := strings.TrimSpace(r.str("doc_string")); d != "" {
				fmt.Fprintf(&b, "Returns: %s\n\n", oneLine(d))
			}
		}
	}
	for _, p := range sorted(module.all("provider_info"), "provider_name") {
		fmt.Fprintf(&b, "### `%s` (provider)\n\n", p.str("provider_name"))
		writeDoc(&b, p.str("doc_string"))
		var rows [][]string
		for _, f := range p.all("field_info") {
			rows = append(rows, []string{"`" + f.str("name") + "`", cell(f.str("doc_string"))})
		}
		writeTable(&b, []string{"field", "meaning"}, rows)
	}
	for _, a := range sorted(module.all("aspect_info"), "aspect_name") {
		fmt.Fprintf(&b, "### `%s` (aspect)\n\n", a.str("aspect_name"))
		writeDoc(&b, a.str("doc_string"))
		if attrs := a.scalars["aspect_attribute"]; len(attrs) > 0 {
			fmt.Fprintf(&b, "Propagates along: %s.\n\n", code(strings.Join(attrs, ", ")))
		}
		writeAttributes(&b, a.all("attribute"))
	}
	return b.String()
}

func sorted(nodes []*node, key string) []*node {
	out := append([]*node{}, nodes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].str(key) < out[j].str(key) })
	return out
}

func writeDoc(b *strings.Builder, doc string) {
	if d := strings.TrimSpace(dedent(doc)); d != "" {
		b.WriteString(d + "\n\n")
	}
}

func writeAttributes(b *strings.Builder, attrs []*node) {
	var rows [][]string
	for _, a := range attrs {
		if a.str("name") != "name" && !strings.HasPrefix(a.str("name"), "_") {
			rows = append(rows, []string{"`" + a.str("name") + "`", strings.ToLower(a.str("type")), code(defaultOf(a)), cell(a.str("doc_string"))})
		}
	}
	writeTable(b, []string{"attribute", "type", "default", "meaning"}, rows)
}

// defaultOf is an attribute's or parameter's default, or "mandatory".
func defaultOf(n *node) string {
	if n.str("mandatory") == "true" {
		return "mandatory"
	}
	return n.str("default_value")
}

// writeTable writes a Markdown table and a blank line; nothing without rows.
func writeTable(b *strings.Builder, header []string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|" + strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// dedent removes the indentation docstrings carry after their first line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := 1; i < len(lines) && indent > 0; i++ {
		if len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell is text fit for one Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(oneLine(dedent(s)), "|", "\\|") }

func code(s string) string {
	switch s {
	case "", `""`, "None", "[]", "{}":
		if s == "" {
			return ""
		}
	case "mandatory":
		return "mandatory"
	}
	return "`" + strings.ReplaceAll(s, "|", "\\|") + "`"
}
