package native

import (
	"errors"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/internal/rescue"
)

// A copy split over goroutines whose destination is too short panics on a
// worker; the panic is raised again on the caller's goroutine.
func TestCopyWorkerPanicReachesCaller(t *testing.T) {
	rows, cols := int64(4), int64(1<<16) // rows of 256 KiB, 512 apart in src
	p := newCopyPlan(4, []int64{rows, cols}, []int64{cols, 1}, []int64{cols + 128, 1})
	src := make([]byte, 4*rows*(cols+128))
	dst := make([]byte, 4*cols*3) // the last row is missing
	got := func() (r any) {
		defer func() { r = recover() }()
		p.runPar(2, dst, 0, src, 0)
		return nil
	}()
	pn, ok := got.(*rescue.Panic)
	if !ok {
		t.Fatalf("runPar panicked with %T %v, want a *rescue.Panic", got, got)
	}
	var re runtime.Error
	if !errors.As(pn, &re) {
		t.Errorf("%v, want the index error", pn)
	}
}
