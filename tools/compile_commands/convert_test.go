package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestConvertNvcc(t *testing.T) {
	argv := []string{
		"toolchains/cuda/private/nvcc_object.sh", "/usr/bin/objcopy", "bazel-out/k8-fastbuild/bin/cuda/_objs/cubridge/backend.pic.o",
		"external/cuda~/bin/nvcc", "-ccbin", "/usr/bin/g++-14", "-x", "cu", "-std=c++17", "-Xcompiler=-fPIC",
		"-Xcompiler=-fvisibility=hidden,-Wall", "-O3", "-I.", "-Icuda/include", "-isystem=external/cuda~/include",
		"-Xptxas=-v", "-lineinfo", "--expt-relaxed-constexpr", "-gencode=arch=compute_90,code=sm_90",
		"-gencode=arch=compute_90,code=compute_90", "-gencode=arch=compute_80,code=sm_80", "-rdc=true",
		"-c", "cuda/src/backend.cu", "-o", "bazel-out/k8-fastbuild/bin/cuda/_objs/cubridge/backend.pic.o",
	}
	e, ok := ConvertAction(argv, "/exec")
	if !ok {
		t.Fatal("not converted")
	}
	want := []string{
		"clang++", "--cuda-path=external/cuda~", "-nocudalib", "--no-cuda-version-check",
		"-isystem", "external/cuda~/include", "-isystem", "external/cuda~/include/cccl",
		"-x", "cuda", "-std=c++17", "-fPIC", "-fvisibility=hidden", "-Wall", "-O3", "-I.", "-Icuda/include",
		"-isystem", "external/cuda~/include", "--cuda-gpu-arch=sm_90", "--cuda-gpu-arch=sm_80", "-fgpu-rdc",
		"-c", "cuda/src/backend.cu", "-o", "bazel-out/k8-fastbuild/bin/cuda/_objs/cubridge/backend.pic.o",
	}
	if !reflect.DeepEqual(e.Arguments, want) {
		t.Errorf("arguments\n got %q\nwant %q", e.Arguments, want)
	}
	if e.File != "cuda/src/backend.cu" || e.Directory != "/exec" || !strings.HasSuffix(e.Output, "backend.pic.o") {
		t.Errorf("entry %+v", e)
	}
}

func TestConvertNvccSpaceSeparated(t *testing.T) {
	argv := []string{"/usr/local/cuda/bin/nvcc", "-arch", "sm_90a", "-Xcompiler", "-fPIC", "--gpu-architecture=compute_100", "-c", "k.cu"}
	e, ok := ConvertAction(argv, "/x")
	if !ok {
		t.Fatal("not converted")
	}
	got := strings.Join(e.Arguments, " ")
	for _, w := range []string{"--cuda-path=/usr/local/cuda", "--cuda-gpu-arch=sm_90 ", "-fPIC", "--cuda-gpu-arch=sm_100", "-c k.cu"} {
		if !strings.Contains(got+" ", w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
}

func TestConvertGcc(t *testing.T) {
	argv := []string{"/usr/bin/gcc", "-fPIC", "-iquote", ".", "-isystem", "external/py/include", "-c", "cext/args.c", "-o", "out/args.pic.o"}
	e, ok := ConvertAction(argv, "/exec")
	if !ok || e.File != "cext/args.c" || e.Output != "out/args.pic.o" || !reflect.DeepEqual(e.Arguments, argv) {
		t.Errorf("got %+v, %v", e, ok)
	}
}

func TestNoSource(t *testing.T) {
	if _, ok := ConvertAction([]string{"/usr/bin/gcc", "-c"}, "/x"); ok {
		t.Error("a command line without a source converted")
	}
	if _, ok := ConvertAction(nil, "/x"); ok {
		t.Error("an empty command line converted")
	}
}

func TestFromAquery(t *testing.T) {
	raw := `{"actions":[
	  {"mnemonic":"CppCompile","arguments":["/usr/bin/gcc","-isystem","external/py/include","-c","cext/b.c","-o","b.o"]},
	  {"mnemonic":"CppCompile","arguments":["/usr/bin/gcc","-c","cext/b.c","-o","b2.o"]},
	  {"mnemonic":"CppCompile","arguments":["/usr/bin/gcc","-c","external/gtest/src/gtest.cc","-o","g.o"]},
	  {"mnemonic":"CudaCompile","arguments":["external/cuda/bin/nvcc","-isystem=external/cuda/include","-c","cuda/a.cu","-o","a.o"]}]}`
	entries, err := fromAquery([]byte(raw), "/root/execroot/_main", "/root/ob", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].File != "cext/b.c" || entries[1].File != "cuda/a.cu" {
		t.Fatalf("entries %+v", entries)
	}
	if entries[0].Output != "b.o" || entries[0].Arguments[2] != "/root/ob/external/py/include" {
		t.Errorf("gcc entry %+v", entries[0])
	}
	cu := strings.Join(entries[1].Arguments, " ")
	for _, w := range []string{"--cuda-path=/root/ob/external/cuda ", "-isystem /root/ob/external/cuda/include "} {
		if !strings.Contains(cu, w) {
			t.Errorf("%q lacks %q", cu, w)
		}
	}
	if _, err := fromAquery([]byte("not json"), "/e", "/o", false); err == nil {
		t.Error("bad aquery output accepted")
	}
	all, _ := fromAquery([]byte(raw), "/e", "/o", true)
	if len(all) != 3 {
		t.Errorf("with external: %d entries", len(all))
	}
}
