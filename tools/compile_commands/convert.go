package main

import (
	"path"
	"strings"
)

// Entry is one compile_commands.json entry (clang's JSON compilation database).
type Entry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
	Output    string   `json:"output,omitempty"`
}

// sourceExts are the files a compile command is recorded for.
var sourceExts = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".cu": true}

// Convert turns one compile action's command line (Bazel's CppCompile with
// gcc, or CudaCompile with nvcc, possibly behind a wrapper script) into an
// entry that clangd understands, run from dir (the execution root). ok is
// false for a command line with no recognisable source file.
func Convert(argv []string, dir string) (e Entry, ok bool) {
	for i, a := range argv {
		if path.Base(a) == "nvcc" {
			return convertNvcc(argv[i+1:], dir)
		}
	}
	if len(argv) == 0 {
		return Entry{}, false
	}
	e = Entry{Directory: dir}
	for _, a := range argv {
		if !gccOnly[a] {
			e.Arguments = append(e.Arguments, a)
		}
	}
	e.File, e.Output = sourceAndOutput(argv)
	return e, e.File != ""
}

// gccOnly are gcc options that clang rejects (Bazel's gcc toolchain adds them,
// and rules_cuda passes them on to nvcc's host compiler).
var gccOnly = map[string]bool{"-fno-canonical-system-headers": true}

// hostOptions are nvcc's -Xcompiler values, less those clang rejects.
func hostOptions(value string) []string {
	var out []string
	for _, o := range strings.Split(value, ",") {
		if !gccOnly[o] {
			out = append(out, o)
		}
	}
	return out
}

// sourceAndOutput finds the operand of -c (or the one source-like operand)
// and of -o.
func sourceAndOutput(argv []string) (src, out string) {
	for i := 0; i < len(argv); i++ {
		switch {
		case argv[i] == "-o" && i+1 < len(argv):
			out = argv[i+1]
			i++
		case argv[i] == "-c" && i+1 < len(argv) && sourceExts[path.Ext(argv[i+1])]:
			src = argv[i+1]
			i++
		case src == "" && !strings.HasPrefix(argv[i], "-") && sourceExts[path.Ext(argv[i])]:
			src = argv[i]
		}
	}
	return src, out
}

// convertNvcc rewrites nvcc's options as clang's CUDA mode spells them:
//
//	-x cu                           -> -x cuda
//	-gencode=arch=compute_90,code=X -> --cuda-gpu-arch=sm_90 (once per arch)
//	--gpu-architecture=X, -arch X   -> --cuda-gpu-arch=sm_NN
//	-Xcompiler=a,b / -Xcompiler a   -> a b (host options)
//	-isystem=X                      -> -isystem X
//	-rdc=true / -dc                 -> -fgpu-rdc
//	-ccbin, -Xptxas, -lineinfo, --expt-*, --extended-lambda, --frandom-seed,
//	-ptx/-cubin/-fatbin: dropped
//
// and adds --cuda-path (the toolkit nvcc came from), the toolkit's include
// directories (nvcc.profile adds include/ and include/cccl), -nocudalib (no
// libdevice needed to read the code) and --no-cuda-version-check (clang may
// predate the toolkit).
func convertNvcc(opts []string, dir string) (Entry, bool) {
	args := []string{"clang++"}
	archs := map[string]bool{}
	addArch := func(spec string) {
		for _, field := range strings.Split(spec, ",") {
			v := field
			for _, p := range []string{"arch=", "code="} {
				v = strings.TrimPrefix(v, p)
			}
			num := ""
			for _, p := range []string{"compute_", "sm_", "lto_"} {
				if strings.HasPrefix(v, p) {
					num = strings.TrimPrefix(v, p)
				}
			}
			num = strings.TrimRight(num, "af")
			if num != "" && !archs[num] {
				archs[num] = true
				args = append(args, "--cuda-gpu-arch=sm_"+num)
			}
		}
	}
	var e Entry
	e.Directory = dir
	for i := 0; i < len(opts); i++ {
		a := opts[i]
		next := func() string {
			if i+1 < len(opts) {
				i++
				return opts[i]
			}
			return ""
		}
		switch {
		case a == "-ccbin" || a == "--compiler-bindir" || a == "-Xptxas" || a == "--ptxas-options" || a == "-Xnvlink":
			next()
		case strings.HasPrefix(a, "-ccbin=") || strings.HasPrefix(a, "--compiler-bindir=") ||
			strings.HasPrefix(a, "-Xptxas=") || strings.HasPrefix(a, "--ptxas-options=") || strings.HasPrefix(a, "-Xnvlink="):
		case a == "-x":
			lang := next()
			if lang == "cu" {
				lang = "cuda"
			}
			args = append(args, "-x", lang)
		case a == "-Xcompiler" || a == "--compiler-options":
			args = append(args, hostOptions(next())...)
		case strings.HasPrefix(a, "-Xcompiler=") || strings.HasPrefix(a, "--compiler-options="):
			_, v, _ := strings.Cut(a, "=")
			args = append(args, hostOptions(v)...)
		case strings.HasPrefix(a, "-gencode="):
			addArch(strings.TrimPrefix(a, "-gencode="))
		case a == "-gencode" || a == "--generate-code" || a == "-arch" || a == "--gpu-architecture" || a == "-code" || a == "--gpu-code":
			addArch(next())
		case strings.HasPrefix(a, "--generate-code=") || strings.HasPrefix(a, "--gpu-architecture=") ||
			strings.HasPrefix(a, "-arch=") || strings.HasPrefix(a, "--gpu-code=") || strings.HasPrefix(a, "-code="):
			_, v, _ := strings.Cut(a, "=")
			addArch(v)
		case strings.HasPrefix(a, "-isystem="):
			args = append(args, "-isystem", strings.TrimPrefix(a, "-isystem="))
		case a == "-rdc=true" || a == "--relocatable-device-code=true" || a == "-dc":
			args = append(args, "-fgpu-rdc")
			if a == "-dc" {
				args = append(args, "-c")
			}
		case a == "-rdc=false" || a == "--relocatable-device-code=false" || a == "-lineinfo" || a == "--generate-line-info" ||
			strings.HasPrefix(a, "--expt-") || a == "--extended-lambda" || a == "-ptx" || a == "-cubin" || a == "-fatbin" ||
			strings.HasPrefix(a, "--use_fast_math") || strings.HasPrefix(a, "-use_fast_math") ||
			strings.HasPrefix(a, "--frandom-seed="):
			// no clang equivalent needed to read the code
		case a == "-o":
			e.Output = next()
			args = append(args, "-o", e.Output)
		case a == "-c":
			args = append(args, a)
		case !strings.HasPrefix(a, "-") && sourceExts[path.Ext(a)]:
			e.File = a
			args = append(args, a)
		default:
			args = append(args, a)
		}
	}
	if e.File == "" {
		return Entry{}, false
	}
	e.Arguments = args
	return e, true
}

// withToolkit adds the CUDA installation options for an nvcc found at nvcc
// (a path relative to the execution root, e.g. external/cuda/bin/nvcc).
func withToolkit(e Entry, nvcc string) Entry {
	root := path.Dir(path.Dir(nvcc))
	extra := []string{
		"--cuda-path=" + root,
		"-nocudalib",
		"--no-cuda-version-check",
		"-isystem", root + "/include",
		"-isystem", root + "/include/cccl",
	}
	// After "clang++", before the rest.
	e.Arguments = append(append([]string{e.Arguments[0]}, extra...), e.Arguments[1:]...)
	return e
}

// ConvertAction is Convert plus the toolkit options for nvcc commands.
func ConvertAction(argv []string, dir string) (Entry, bool) {
	e, ok := Convert(argv, dir)
	if !ok {
		return e, false
	}
	for _, a := range argv {
		if path.Base(a) == "nvcc" {
			return withToolkit(e, a), true
		}
	}
	return e, true
}
