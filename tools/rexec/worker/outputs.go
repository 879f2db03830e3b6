package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
)

// outputSpec is what a Command declares it writes, relative to its working
// directory. A client of REAPI >= 2.1 lists output_paths (files or
// directories, known after the run); older ones list files and directories.
type outputSpec struct {
	paths       []string
	files       []string
	directories []string
	usePaths    bool
}

func outputSpecOf(cmd *repb.Command) outputSpec {
	if len(cmd.OutputPaths) > 0 {
		return outputSpec{paths: cmd.OutputPaths, usePaths: true}
	}
	return outputSpec{files: cmd.OutputFiles, directories: cmd.OutputDirectories}
}

func (s outputSpec) all() []string {
	all := append(append(append([]string(nil), s.paths...), s.files...), s.directories...)
	return all
}

// checkRelative rejects a path that is absolute or climbs out of its root.
func checkRelative(p string) error {
	if p == "" || filepath.IsAbs(p) {
		return fmt.Errorf("path %q is not relative", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return fmt.Errorf("path %q leaves its root", p)
		}
	}
	return nil
}

// prepareOutputs creates the parent directories of every output path (REAPI:
// the worker does, so that the command need not).
func prepareOutputs(workDir string, spec outputSpec) error {
	for _, p := range spec.all() {
		if err := checkRelative(p); err != nil {
			return fmt.Errorf("output %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(workDir, p)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// collectedOutputs is an ActionResult's outputs and the blobs they name.
type collectedOutputs struct {
	result *repb.ActionResult
	blobs  []uploadBlob
}

// collectOutputs reads the declared outputs under workDir into an
// ActionResult (digests only) and the list of blobs to upload. A declared
// output that the command did not write is left out: the client decides
// whether it was optional.
func collectOutputs(workDir string, spec outputSpec) (*collectedOutputs, error) {
	out := &collectedOutputs{result: &repb.ActionResult{}}
	add := func(p string, wantDir, wantFile bool) error {
		full := filepath.Join(workDir, p)
		info, err := os.Lstat(full)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			return out.addSymlink(p, full, spec.usePaths)
		case info.IsDir():
			if wantFile {
				return fmt.Errorf("output file %q is a directory", p)
			}
			return out.addDirectory(p, full)
		case info.Mode().IsRegular():
			if wantDir {
				return fmt.Errorf("output directory %q is a file", p)
			}
			return out.addFile(p, full, info)
		default:
			return fmt.Errorf("output %q is neither a file, a directory nor a symlink (%s)", p, info.Mode().Type())
		}
	}
	for _, p := range spec.paths {
		if err := add(p, false, false); err != nil {
			return nil, err
		}
	}
	for _, p := range spec.files {
		if err := add(p, false, true); err != nil {
			return nil, err
		}
	}
	for _, p := range spec.directories {
		if err := add(p, true, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (o *collectedOutputs) addFile(p, full string, info os.FileInfo) error {
	d, err := fileDigest(full)
	if err != nil {
		return err
	}
	o.result.OutputFiles = append(o.result.OutputFiles, &repb.OutputFile{
		Path: p, Digest: d, IsExecutable: info.Mode()&0o111 != 0,
	})
	o.blobs = append(o.blobs, uploadBlob{digest: d, path: full})
	return nil
}

func (o *collectedOutputs) addSymlink(p, full string, usePaths bool) error {
	target, err := os.Readlink(full)
	if err != nil {
		return err
	}
	link := &repb.OutputSymlink{Path: p, Target: target}
	if usePaths {
		o.result.OutputSymlinks = append(o.result.OutputSymlinks, link)
		return nil
	}
	// Clients before REAPI 2.1 want the link filed by what it points to.
	if info, err := os.Stat(full); err == nil && info.IsDir() {
		o.result.OutputDirectorySymlinks = append(o.result.OutputDirectorySymlinks, link)
	} else {
		o.result.OutputFileSymlinks = append(o.result.OutputFileSymlinks, link)
	}
	return nil
}

func (o *collectedOutputs) addDirectory(p, full string) error {
	tree := &repb.Tree{}
	seen := map[string]bool{}
	root, err := o.directoryOf(full, tree, seen)
	if err != nil {
		return err
	}
	tree.Root = root
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(tree)
	if err != nil {
		return err
	}
	d := digestOf(data)
	o.blobs = append(o.blobs, uploadBlob{digest: d, data: data})
	o.result.OutputDirectories = append(o.result.OutputDirectories, &repb.OutputDirectory{Path: p, TreeDigest: d})
	return nil
}

// directoryOf builds the Directory of dir, adding each distinct child
// Directory to tree.Children once. Entries come sorted by name, as REAPI
// requires (os.ReadDir sorts).
func (o *collectedOutputs) directoryOf(dir string, tree *repb.Tree, seen map[string]bool) (*repb.Directory, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	d := &repb.Directory{}
	for _, e := range entries {
		full := filepath.Join(dir, e.Name())
		info, err := os.Lstat(full)
		if err != nil {
			return nil, err
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(full)
			if err != nil {
				return nil, err
			}
			d.Symlinks = append(d.Symlinks, &repb.SymlinkNode{Name: e.Name(), Target: target})
		case info.IsDir():
			child, err := o.directoryOf(full, tree, seen)
			if err != nil {
				return nil, err
			}
			data, err := proto.MarshalOptions{Deterministic: true}.Marshal(child)
			if err != nil {
				return nil, err
			}
			cd := digestOf(data)
			if !seen[digestKey(cd)] {
				seen[digestKey(cd)] = true
				tree.Children = append(tree.Children, child)
			}
			d.Directories = append(d.Directories, &repb.DirectoryNode{Name: e.Name(), Digest: cd})
		case info.Mode().IsRegular():
			fd, err := fileDigest(full)
			if err != nil {
				return nil, err
			}
			d.Files = append(d.Files, &repb.FileNode{Name: e.Name(), Digest: fd, IsExecutable: info.Mode()&0o111 != 0})
			o.blobs = append(o.blobs, uploadBlob{digest: fd, path: full})
		default:
			return nil, fmt.Errorf("%s in an output directory is neither a file, a directory nor a symlink", full)
		}
	}
	return d, nil
}

// fileDigest hashes a file without holding it in memory.
func fileDigest(path string) (*repb.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hw := newHashingWriter(io.Discard)
	if _, err := io.Copy(hw, f); err != nil {
		return nil, err
	}
	return hw.digest(), nil
}
