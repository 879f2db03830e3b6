package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// appendObjects appends object files to a Go archive (the Unix ar format that
// go tool compile -pack writes), as `go tool pack r` does.
func appendObjects(archive string, objs []string) error {
	if len(objs) == 0 {
		return nil
	}
	out, err := os.OpenFile(archive, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		data, err := os.ReadFile(obj)
		if err != nil {
			out.Close()
			return err
		}
		name := filepath.Base(obj)
		if len(name) > 16 {
			name = name[:16]
		}
		if _, err := fmt.Fprintf(out, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, 0, 0, 0, 0o644, len(data)); err != nil {
			out.Close()
			return err
		}
		if len(data)%2 == 1 {
			data = append(data, '\n')
		}
		if _, err := out.Write(data); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}
