package rescue

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// A panic on a worker goroutine comes back on the waiting goroutine with
// its value and the line that raised it; the process lives on.
func TestRaiseOnWaiter(t *testing.T) {
	var c First
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Run(func() {
				if w == 1 {
					var s []int
					_ = s[w] // index out of range
				}
			})
		}()
	}
	wg.Wait()
	if !c.Caught() {
		t.Fatal("Caught = false after a worker panicked")
	}
	got := func() (r any) {
		defer func() { r = recover() }()
		c.Raise()
		return nil
	}()
	p, ok := got.(*Panic)
	if !ok {
		t.Fatalf("Raise panicked with %T %v, want *Panic", got, got)
	}
	var re runtime.Error
	if !errors.As(p, &re) {
		t.Errorf("%v does not unwrap to the runtime.Error", p)
	}
	if !strings.Contains(p.Site, "rescue_test.go:") || !strings.Contains(p.Error(), "index out of range") {
		t.Errorf("Error() = %q, Site = %q: want the value and this file's line", p.Error(), p.Site)
	}
}

// Without a panic, Run reports ok and Raise does nothing; a nested group's
// Panic keeps its first site.
func TestRunNormalAndNested(t *testing.T) {
	var c First
	if !c.Run(func() {}) || c.Caught() {
		t.Fatal("Run of a normal function reported a panic")
	}
	c.Raise()
	inner := &Panic{Value: "boom", Site: "inner.go:7"}
	if c.Run(func() { panic(inner) }) {
		t.Fatal("Run reported ok for a panicking function")
	}
	if c.p.Load() != inner {
		t.Errorf("kept %v, want the nested group's own Panic", c.p.Load())
	}
}
