// Package testdata reads the test vectors (testdata/*.txt) that the C++, Go
// and Python tests share.
package testdata

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Case is one case: its name, dtype and named values.
type Case struct {
	Name, DType string
	Values      map[string][]float64
}

// Load reads the cases of the file at path (relative to the runfiles; with
// $VECTORS_DIR set, that directory's file of the same name).
func Load(path string) ([]Case, error) {
	if dir := os.Getenv("VECTORS_DIR"); dir != "" {
		path = filepath.Join(dir, filepath.Base(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []Case
	var c *Case
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			c = nil
			continue
		}
		if fields[0] == "case" {
			if len(fields) != 3 {
				return nil, fmt.Errorf("%s:%d: want 'case NAME DTYPE'", path, line)
			}
			cases = append(cases, Case{Name: fields[1], DType: fields[2], Values: map[string][]float64{}})
			c = &cases[len(cases)-1]
			continue
		}
		if c == nil {
			return nil, fmt.Errorf("%s:%d: values outside a case", path, line)
		}
		values := make([]float64, 0, len(fields)-1)
		for _, v := range fields[1:] {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			values = append(values, x)
		}
		c.Values[fields[0]] = values
	}
	return cases, sc.Err()
}

// Scalar is the one value of key.
func (c Case) Scalar(key string) float64 { return c.Values[key][0] }
