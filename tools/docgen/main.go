// Command docgen writes the rule reference (Markdown) from the module
// documentation that Bazel's starlark_doc_extract writes (stardoc's
// ModuleInfo, text format): stardoc's job, without stardoc.
//
//	docgen -out FILE [-header FILE] TITLE=LOAD_LABEL=MODULE.textproto...
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("docgen", flag.ContinueOnError)
	out := fs.String("out", "", "the Markdown file to write")
	header := fs.String("header", "", "a Markdown file put first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	modules := fs.Args()
	if *out == "" || len(modules) == 0 {
		return fmt.Errorf("usage: docgen -out FILE [-header FILE] TITLE=LOAD_LABEL=MODULE.textproto...")
	}
	var b bytes.Buffer
	if *header != "" {
		h, err := os.ReadFile(*header)
		if err != nil {
			return err
		}
		b.Write(h)
		b.WriteString("\n")
	}
	for _, m := range modules {
		parts := strings.SplitN(m, "=", 3)
		if len(parts) != 3 {
			return fmt.Errorf("%q is not TITLE=LOAD_LABEL=FILE", m)
		}
		src, err := os.ReadFile(parts[2])
		if err != nil {
			return err
		}
		module, err := parseTextproto(string(src))
		if err != nil {
			return fmt.Errorf("%s: %v", parts[2], err)
		}
		b.WriteString(markdown(module, parts[0], parts[1]))
	}
	return os.WriteFile(*out, append(bytes.TrimRight(b.Bytes(), "\n"), '\n'), 0o644)
}
