package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// retagMain: wheelcheck retag -platform TAG|auto -out-dir DIR [-name-out FILE]
// [-platform-out FILE] WHEEL
//
// rules_python's py_wheel names its output at analysis time, before any native
// code is built, so it takes the platform tag as written. retag rewrites such a
// wheel under the tag its shared objects need (auto), or checks a written one
// against them: the WHEEL file's Tag lines, RECORD's line for WHEEL, and the
// file name change; every other entry is copied as it is (same bytes, same
// order, same time stamps), so the result is as reproducible as its input.
func retagMain(args []string) error {
	fs := flag.NewFlagSet("retag", flag.ContinueOnError)
	platform := fs.String("platform", "auto", "the platform tag, or auto to derive it")
	outDir := fs.String("out-dir", "", "directory to write the retagged wheel into")
	nameOut := fs.String("name-out", "", "write the wheel's file name here")
	platformOut := fs.String("platform-out", "", "write the platform tag here")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *outDir == "" {
		return fmt.Errorf("usage: wheelcheck retag -platform TAG|auto -out-dir DIR WHEEL")
	}
	in := fs.Arg(0)
	zr, err := zip.OpenReader(in)
	if err != nil {
		return err
	}
	defer zr.Close()
	tag, err := wheelPlatform(zr, *platform)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(in), err)
	}
	name, err := renamedWheel(filepath.Base(in), tag)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	if err := rewriteWheel(zr, filepath.Join(*outDir, name), tag); err != nil {
		return err
	}
	for file, content := range map[string]string{*nameOut: name, *platformOut: tag} {
		if file != "" {
			if err := os.WriteFile(file, []byte(content+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// wheelPlatform derives the tag the wheel's shared objects need, or checks a given one.
func wheelPlatform(zr *zip.ReadCloser, platform string) (string, error) {
	var objects []objectNeeds
	for _, f := range zr.File {
		base := filepath.Base(f.Name)
		if !strings.HasSuffix(base, ".so") && !strings.Contains(base, ".so.") {
			continue
		}
		data, err := readAll(f)
		if err != nil {
			return "", err
		}
		o, err := objectFromBytes(f.Name, data)
		if err != nil {
			return "", err
		}
		objects = append(objects, o)
	}
	tag, why, err := deriveTag(objects)
	if err != nil || platform == "auto" {
		return tag, err
	}
	return platform, checkTag(platform, tag, why)
}

// renamedWheel replaces the platform tag of a wheel file name.
func renamedWheel(name, tag string) (string, error) {
	old, err := platformTag(name)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(name, old+".whl") + tag + ".whl", nil
}

func rewriteWheel(zr *zip.ReadCloser, out, tag string) error {
	var wheelFile []byte
	for _, f := range zr.File {
		if isDistInfo(f.Name, "WHEEL") {
			data, err := readAll(f)
			if err != nil {
				return err
			}
			wheelFile = retagWheelFile(data, tag)
		}
	}
	if wheelFile == nil {
		return fmt.Errorf("no .dist-info/WHEEL in the wheel")
	}
	tmp := out + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, f := range zr.File {
		switch {
		case isDistInfo(f.Name, "WHEEL"):
			err = writeEntry(zw, f, wheelFile)
		case isDistInfo(f.Name, "RECORD"):
			var record []byte
			if record, err = readAll(f); err == nil {
				err = writeEntry(zw, f, recordWith(record, f.Name, wheelFile))
			}
		default:
			err = zw.Copy(f)
		}
		if err != nil {
			w.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

func isDistInfo(name, file string) bool {
	dir, base := filepath.Split(name)
	return base == file && strings.HasSuffix(strings.TrimSuffix(dir, "/"), ".dist-info") && strings.Count(name, "/") == 1
}

// retagWheelFile gives every "Tag: py-abi-platform" line the new platform.
func retagWheelFile(data []byte, tag string) []byte {
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		if rest, ok := strings.CutPrefix(line, "Tag: "); ok {
			if cut := strings.LastIndex(rest, "-"); cut >= 0 {
				lines[i] = "Tag: " + rest[:cut+1] + tag
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// recordWith rewrites RECORD's line for the WHEEL file (its hash and size).
func recordWith(record []byte, recordName string, wheelFile []byte) []byte {
	wheelName := strings.TrimSuffix(recordName, "RECORD") + "WHEEL"
	sum := sha256.Sum256(wheelFile)
	lines := strings.Split(string(record), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, wheelName+",") {
			lines[i] = fmt.Sprintf("%s,sha256=%s,%d", wheelName, base64.RawURLEncoding.EncodeToString(sum[:]), len(wheelFile))
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// writeEntry writes new content under an entry's own header (name, time, mode, method).
func writeEntry(zw *zip.Writer, f *zip.File, data []byte) error {
	header := f.FileHeader
	header.CRC32, header.CompressedSize64, header.UncompressedSize64 = 0, 0, 0
	ew, err := zw.CreateHeader(&header)
	if err != nil {
		return err
	}
	_, err = io.Copy(ew, bytes.NewReader(data))
	return err
}
