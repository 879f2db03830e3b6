package cubridge_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/cubridge/cubridge/go/cubridge"
)

func ExampleAdd() {
	a := []float32{1, 2, 3}
	b := []float32{10, 20, 30}
	dst := make([]float32, len(a))
	if err := cubridge.Add(dst, a, b); err != nil {
		log.Fatal(err)
	}
	fmt.Println(dst)
	// Output: [11 22 33]
}

func ExampleAdd_lengthMismatch() {
	err := cubridge.Add(make([]float64, 3), []float64{1, 2, 3}, []float64{1, 2})
	fmt.Println(errors.Is(err, cubridge.ErrInvalidArgument))
	var e *cubridge.Error
	if errors.As(err, &e) {
		fmt.Println(e.Op, e.Status)
	}
	// Output:
	// true
	// add INVALID_ARGUMENT
}

func ExampleAddContext() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // already cancelled: no work is done
	x := []int32{1, 2}
	err := cubridge.AddContext(ctx, x, x, x)
	fmt.Println(err, x)
	// Output: context canceled [1 2]
}

func ExampleDiv() {
	a := []float64{1, 2, 3}
	b := []float64{4, 0, 2}
	dst := make([]float64, 3)
	if err := cubridge.Div(dst, a, b, -1); err != nil { // -1 where b is 0
		log.Fatal(err)
	}
	fmt.Println(dst)
	// Output: [0.25 -1 1.5]
}

func ExampleAxpy() {
	x := []float64{1, 2, 3}
	y := []float64{10, 10, 10}
	if err := cubridge.Axpy(2, x, y); err != nil { // y = 2*x + y
		log.Fatal(err)
	}
	fmt.Println(y)
	// Output: [12 14 16]
}

func ExampleConvert() {
	src := []float64{1.9, -1.9, 1e20}
	dst := make([]int32, len(src))
	if err := cubridge.Convert(dst, src); err != nil {
		log.Fatal(err)
	}
	fmt.Println(dst)
	// Output: [1 -1 2147483647]
}

func ExampleSum() {
	s, err := cubridge.Sum([]float32{0.5, 1.5, 2})
	if err != nil {
		log.Fatal(err)
	}
	n, err := cubridge.SumInt([]int32{2147483647, 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s, n)
	// Output: 4 2147483648
}

func ExampleMax() {
	m, err := cubridge.Max([]int64{3, -7, 12, 5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m)
	_, err = cubridge.Max([]int64{})
	fmt.Println(errors.Is(err, cubridge.ErrInvalidArgument))
	// Output:
	// 12
	// true
}

func ExampleNewDevice() {
	x, err := cubridge.NewDevice[float32](4)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Free()
	if err := x.CopyFrom([]float32{1, 2, 3, 4}); err != nil {
		log.Fatal(err)
	}
	if err := cubridge.ScaleBuffer(10, x, nil); err != nil { // queued on the default stream
		log.Fatal(err)
	}
	out := make([]float32, x.Len())
	if err := x.CopyTo(out); err != nil { // waits for the default stream
		log.Fatal(err)
	}
	sum, err := cubridge.SumBuffer(x, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out, sum)
	// Output: [10 20 30 40] 100
}

func ExampleBuffer_Free() {
	x, err := cubridge.NewDevice[int64](2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(x.Free())
	fmt.Println(errors.Is(x.CopyFrom([]int64{1, 2}), cubridge.ErrInvalidArgument))
	// Output:
	// <nil>
	// true
}

func ExampleNewStream() {
	s, err := cubridge.NewStream()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	a, _ := cubridge.NewDevice[float64](3)
	defer a.Free()
	b, _ := cubridge.NewDevice[float64](3)
	defer b.Free()
	_ = a.CopyFrom([]float64{1, 2, 3})
	_ = b.CopyFrom([]float64{4, 5, 6})
	// Both ops run in order on s, asynchronously to the host.
	if err := cubridge.AddBuffer(b, a, b, s); err != nil {
		log.Fatal(err)
	}
	if err := cubridge.MulBuffer(b, b, b, s); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	out := make([]float64, 3)
	_ = b.CopyTo(out)
	fmt.Println(out)
	// Output: [25 49 81]
}

func ExampleElapsed() {
	start, _ := cubridge.NewEvent()
	defer start.Close()
	end, _ := cubridge.NewEvent()
	defer end.Close()
	x, _ := cubridge.NewDevice[float32](1 << 20)
	defer x.Free()

	_ = start.Record(nil)
	_ = cubridge.FillBuffer(x, 1, nil)
	_ = end.Record(nil)
	_ = end.Synchronize()
	d, err := cubridge.Elapsed(start, end)
	fmt.Println(err, d >= 0)
	// Output: <nil> true
}

func ExampleBackend() {
	b, err := cubridge.Backend()
	if err != nil {
		log.Fatal(err)
	}
	// "cpu" without a GPU, "cuda" with one.
	fmt.Println(b == cubridge.BackendCPU || b == cubridge.BackendCUDA)
	// Output: true
}
