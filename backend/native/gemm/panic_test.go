package gemm

import (
	"errors"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/internal/rescue"
)

// An operand shorter than its view makes a worker panic while packing; the
// panic comes back on the caller (its workers do not wait at the barrier
// for the one that died), for the caller's recover to turn into an error.
func TestWorkerPanicReachesCaller(t *testing.T) {
	for _, n := range []int{256, 1024} { // B packed once and shared; B packed per chunk
		m, k := 256, 256
		a := RowMajor(make([]float32, m*k), k)
		b := RowMajor(make([]float32, k*n/2), n) // half of B is missing
		c := make([]float32, m*n)
		got := func() (r any) {
			defer func() { r = recover() }()
			Sgemm(m, n, k, a, b, c, n, false, 2)
			return nil
		}()
		p, ok := got.(*rescue.Panic)
		if !ok {
			t.Fatalf("n=%d: Sgemm panicked with %T %v, want a *rescue.Panic", n, got, got)
		}
		var re runtime.Error
		if !errors.As(p, &re) {
			t.Errorf("n=%d: %v, want the index error", n, p)
		}
	}
}
