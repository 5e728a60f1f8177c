package native

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// goid is the calling goroutine's id, from its stack header.
func goid() int {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return id
}

// helperPanics runs a two-way parallel loop whose index taken by a helper
// goroutine (not the caller's) panics: the caller's index waits until the
// helper has started its own, so the helper does take one.
func helperPanics(msg string) {
	caller := goid()
	started := make(chan struct{})
	var once atomic.Bool
	parallel(2, 2, func(int) {
		if goid() == caller {
			select {
			case <-started:
			case <-time.After(time.Minute): // no helper came: the test fails, it does not hang
			}
			return
		}
		if once.CompareAndSwap(false, true) {
			close(started)
		}
		panic(msg)
	})
}

// A kernel whose parallel loop panics on a helper goroutine ends the run
// with an error naming the panic, as one panicking on the caller's does;
// the process lives on, and so do the helpers, for the next loop.
func TestHelperPanicIsAnError(t *testing.T) {
	src := `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.reverse %a, dims = [0] : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}`
	m, err := stablehlo.ParseModule("panic.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	old := kernels["stablehlo.reverse"]
	defer func() { kernels["stablehlo.reverse"] = old }()
	for _, nested := range []bool{false, true} {
		kernels["stablehlo.reverse"] = func(Env, *stablehlo.Op, []Value) ([]Value, error) {
			if nested { // the inner loops find the pool taken and start goroutines
				parallel(2, 2, func(int) { helperPanics("boom on a helper") })
			} else {
				helperPanics("boom on a helper")
			}
			return nil, nil
		}
		exe, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		x, _ := literal.New(dtype.F32, []int64{4})
		_, err = exe.Run(context.Background(), []*literal.Literal{x})
		if err == nil || !strings.Contains(err.Error(), "boom on a helper") ||
			!strings.Contains(err.Error(), "fast_conv_pool_panic_test.go:") {
			t.Errorf("nested %v: run = %v, want an error naming the helper's panic and its line", nested, err)
		}
	}
	var sum atomic.Int64
	parallel(2, 100, func(i int) { sum.Add(int64(i)) })
	if sum.Load() != 99*100/2 {
		t.Errorf("a loop after the panics summed %d, want %d", sum.Load(), 99*100/2)
	}
}
