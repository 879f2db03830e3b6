// Command wheelmaker writes a wheel (PEP 427) reproducibly: entries sorted,
// timestamps fixed, permissions normalised, RECORD with sha256 hashes.
//
// Usage:
//
//	wheelmaker -out FILE -name DIST -version V -tag PY-ABI-PLATFORM \
//	  -metadata HEADERS [-description README] -files MANIFEST
//
// With -platform-file F, the tag's platform part is F's content (the tag given
// is PY-ABI) and -out is a directory that gets the wheel under its PEP 427
// name; -name-out N writes that file name to N.
//
// HEADERS holds METADATA header lines (Name/Version are added); MANIFEST holds
// one "archive/path<TAB>source/file" line per file.
package main

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// fixedTime is the earliest time a zip entry can carry: no build timestamps.
var fixedTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

type entry struct {
	name string
	data []byte
	exec bool
}

func main() {
	out := flag.String("out", "", "wheel to write")
	name := flag.String("name", "", "distribution name")
	version := flag.String("version", "", "distribution version")
	tag := flag.String("tag", "", "python-abi-platform tag")
	metadata := flag.String("metadata", "", "file of METADATA header lines")
	description := flag.String("description", "", "long description (markdown) file")
	files := flag.String("files", "", "manifest: archive path TAB source file, per line")
	platformFile := flag.String("platform-file", "", "file holding the platform tag; -tag is then PY-ABI and -out a directory")
	nameOut := flag.String("name-out", "", "file to write the wheel's file name to")
	flag.Parse()
	if *out == "" || *name == "" || *version == "" || *tag == "" || *files == "" {
		fmt.Fprintln(os.Stderr, "wheelmaker: -out, -name, -version, -tag and -files are required")
		os.Exit(2)
	}
	target := *out
	if *platformFile != "" {
		platform, err := os.ReadFile(*platformFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wheelmaker:", err)
			os.Exit(1)
		}
		*tag += "-" + strings.TrimSpace(string(platform))
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "wheelmaker:", err)
			os.Exit(1)
		}
		target = filepath.Join(*out, wheelFileName(*name, *version, *tag))
	}
	if *nameOut != "" {
		if err := os.WriteFile(*nameOut, []byte(filepath.Base(target)+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "wheelmaker:", err)
			os.Exit(1)
		}
	}
	if err := run(target, *name, *version, *tag, *metadata, *description, *files); err != nil {
		fmt.Fprintln(os.Stderr, "wheelmaker:", err)
		os.Exit(1)
	}
}

// wheelFileName is the PEP 427 file name: DIST-VERSION-PY-ABI-PLATFORM.whl
// with "-" in the distribution name escaped.
func wheelFileName(name, version, tag string) string {
	return strings.ReplaceAll(name, "-", "_") + "-" + version + "-" + tag + ".whl"
}

func run(out, name, version, tag, metadataFile, descriptionFile, manifest string) error {
	entries, err := readManifest(manifest)
	if err != nil {
		return err
	}
	distInfo := strings.ReplaceAll(name, "-", "_") + "-" + version + ".dist-info/"
	meta, err := metadataText(name, version, metadataFile, descriptionFile)
	if err != nil {
		return err
	}
	entries = append(entries,
		entry{name: distInfo + "METADATA", data: []byte(meta)},
		entry{name: distInfo + "WHEEL", data: []byte(wheelText(tag))})
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	for i := 1; i < len(entries); i++ {
		if entries[i].name == entries[i-1].name {
			return fmt.Errorf("two files for %s", entries[i].name)
		}
	}
	entries = append(entries, entry{name: distInfo + "RECORD", data: []byte(record(entries, distInfo+"RECORD"))})
	return writeZip(out, entries)
}

func readManifest(path string) ([]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []entry
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		archive, source, ok := strings.Cut(scanner.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("bad manifest line %q", scanner.Text())
		}
		data, err := os.ReadFile(source)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{name: archive, data: data, exec: strings.HasSuffix(archive, ".so")})
	}
	return entries, scanner.Err()
}

func metadataText(name, version, headersFile, descriptionFile string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, version)
	if headersFile != "" {
		headers, err := os.ReadFile(headersFile)
		if err != nil {
			return "", err
		}
		b.Write(headers)
	}
	if descriptionFile != "" {
		description, err := os.ReadFile(descriptionFile)
		if err != nil {
			return "", err
		}
		b.WriteString("Description-Content-Type: text/markdown\n\n")
		b.Write(description)
	}
	return b.String(), nil
}

func wheelText(tag string) string {
	return "Wheel-Version: 1.0\nGenerator: cubridge wheelmaker\nRoot-Is-Purelib: false\nTag: " + tag + "\n"
}

// record is the RECORD file: path,sha256=<urlsafe b64 nopad>,size per entry.
func record(entries []entry, self string) string {
	var b strings.Builder
	for _, e := range entries {
		sum := sha256.Sum256(e.data)
		fmt.Fprintf(&b, "%s,sha256=%s,%d\n", e.name, base64.RawURLEncoding.EncodeToString(sum[:]), len(e.data))
	}
	b.WriteString(self + ",,\n")
	return b.String()
}

func writeZip(path string, entries []entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		mode := os.FileMode(0o644)
		if e.exec {
			mode = 0o755
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: fixedTime}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(e.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
