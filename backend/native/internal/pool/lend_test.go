package pool

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// goroutineHost lends n goroutines as a host pool's threads: body on each
// at once (concurrent), or one after another (serial: a host that could
// not start its team).
func goroutineHost(n int, serial bool, calls *atomic.Int32) *Host {
	return &Host{Threads: func() int { return n }, PerRun: true, Run: func(k int, body func()) bool {
		if serial {
			for i := 0; i < k; i++ {
				calls.Add(1)
				body()
			}
			return true
		}
		var wg sync.WaitGroup
		for i := 0; i < k; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); calls.Add(1); body() }()
		}
		wg.Wait()
		return true
	}}
}

// A run lent the host's threads does its loops on them (every index once),
// with a concurrent host and with one that calls body one after another;
// a panic in a loop or in the run itself comes back on the caller.
func TestLendPerRun(t *testing.T) {
	defer SetHost(nil)
	for _, serial := range []bool{false, true} {
		var calls atomic.Int32
		SetHost(goroutineHost(3, serial, &calls))
		var sum atomic.Int64
		Lend(func() {
			for loop := 0; loop < 50; loop++ {
				Run(3, 100, func(i int) { sum.Add(int64(i)) })
			}
		})
		if got := sum.Load(); got != 50*4950 {
			t.Errorf("serial=%v: sum %d, want %d", serial, got, 50*4950)
		}
		if calls.Load() != 3 {
			t.Errorf("serial=%v: the host called body %d times, want 3 (one ask per run)", serial, calls.Load())
		}
		if lent.Load() != nil {
			t.Errorf("serial=%v: the lent run outlives Lend", serial)
		}
		for _, inLoop := range []bool{true, false} {
			func() {
				defer func() {
					r := recover()
					if r == nil || !strings.Contains(stringOf(r), "boom") {
						t.Errorf("serial=%v inLoop=%v: recovered %v, want the panic", serial, inLoop, r)
					}
				}()
				Lend(func() {
					if inLoop {
						Run(3, 10, func(i int) {
							if i == 7 {
								panic("boom")
							}
						})
					}
					panic("boom")
				})
			}()
		}
	}
}

func stringOf(r any) string {
	if e, ok := r.(error); ok {
		return e.Error()
	}
	if s, ok := r.(string); ok {
		return s
	}
	return ""
}
