package main

import (
	"fmt"

	"github.com/cubridge/cubridge/go/cubridge"
)

// check is one self-check: a few library calls compared with plain Go.
type check struct {
	name string
	run  func() error
}

const checkLen = 100_003 // large enough for the parallel and GPU paths, odd to catch tails

func selfChecks() []check {
	return []check{
		{"add float32 (slices)", checkAddSlices[float32]},
		{"add float64 (slices)", checkAddSlices[float64]},
		{"add int32 (slices)", checkAddSlices[int32]},
		{"axpy float64 (device buffers)", checkAxpyBuffers},
		{"sum, dot float32", checkReductions},
		{"min, max int64", checkMinMax},
		{"convert float64 -> int32", checkConvert},
		{"errors", checkErrors},
	}
}

func values[T cubridge.Number](n, seed int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T((i*31+seed*17)%201 - 100)
	}
	return out
}

func compare[T cubridge.Number](op string, got, want []T) error {
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s: element %d is %v, want %v", op, i, got[i], want[i])
		}
	}
	return nil
}

func checkAddSlices[T cubridge.Number]() error {
	a, b := values[T](checkLen, 1), values[T](checkLen, 2)
	got := make([]T, checkLen)
	if err := cubridge.Add(got, a, b); err != nil {
		return err
	}
	want := make([]T, checkLen)
	for i := range want {
		want[i] = a[i] + b[i]
	}
	return compare("add", got, want)
}

func checkAxpyBuffers() error {
	x, y := values[float64](checkLen, 3), values[float64](checkLen, 4)
	xb, err := cubridge.NewDevice[float64](checkLen)
	if err != nil {
		return err
	}
	defer xb.Free()
	yb, err := cubridge.NewDevice[float64](checkLen)
	if err != nil {
		return err
	}
	defer yb.Free()
	s, err := cubridge.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := xb.CopyFrom(x); err != nil {
		return err
	}
	if err := yb.CopyFrom(y); err != nil {
		return err
	}
	if err := cubridge.AxpyBuffer(0.5, xb, yb, s); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	got := make([]float64, checkLen)
	if err := yb.CopyTo(got); err != nil {
		return err
	}
	want := make([]float64, checkLen)
	for i := range want {
		want[i] = float64(0.5*x[i]) + y[i]
	}
	return compare("axpy", got, want)
}

func checkReductions() error {
	x, y := values[float32](checkLen, 5), values[float32](checkLen, 6)
	var wantSum, wantDot float64 // small integers: exact in any order
	for i := range x {
		wantSum += float64(x[i])
		wantDot += float64(x[i]) * float64(y[i])
	}
	sum, err := cubridge.Sum(x)
	if err != nil {
		return err
	}
	dot, err := cubridge.Dot(x, y)
	if err != nil {
		return err
	}
	if sum != wantSum || dot != wantDot {
		return fmt.Errorf("sum %v dot %v, want %v and %v", sum, dot, wantSum, wantDot)
	}
	return nil
}

func checkMinMax() error {
	x := values[int64](checkLen, 7)
	x[checkLen/3] = -1 << 40
	x[checkLen-1] = 1 << 40
	mn, err := cubridge.Min(x)
	if err != nil {
		return err
	}
	mx, err := cubridge.Max(x)
	if err != nil {
		return err
	}
	if mn != -1<<40 || mx != 1<<40 {
		return fmt.Errorf("min %d max %d, want %d and %d", mn, mx, int64(-1<<40), int64(1<<40))
	}
	return nil
}

func checkConvert() error {
	src := []float64{2.75, -2.75, 0, 1e12, -1e12}
	got := make([]int32, len(src))
	if err := cubridge.Convert(got, src); err != nil {
		return err
	}
	return compare("convert", got, []int32{2, -2, 0, 2147483647, -2147483648})
}

func checkErrors() error {
	err := cubridge.Add(make([]float32, 2), make([]float32, 2), make([]float32, 3))
	if err == nil {
		return fmt.Errorf("mismatched lengths were accepted")
	}
	if _, err := cubridge.Min([]float32{}); err == nil {
		return fmt.Errorf("min of nothing was accepted")
	}
	return nil
}
