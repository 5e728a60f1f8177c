package pool

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestParallelPool checks that Run runs every index once: on awake
// and on sleeping helpers, nested, from several goroutines at once, and
// with more threads than the pool had.
func TestParallelPool(t *testing.T) {
	check := func(threads, n int, nested bool) {
		counts := make([]atomic.Int32, n)
		Run(threads, n, func(i int) {
			counts[i].Add(1)
			if nested {
				var inner atomic.Int32
				Run(threads, 5, func(int) { inner.Add(1) })
				if inner.Load() != 5 {
					t.Errorf("nested loop ran %d of 5", inner.Load())
				}
			}
		})
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Errorf("threads=%d n=%d: index %d ran %d times", threads, n, i, c)
				return
			}
		}
	}
	for _, threads := range []int{1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 7, 100} {
			check(threads, n, false)
		}
	}
	check(2, 10, true)
	time.Sleep(3 * Spin) // the helpers fall asleep
	check(2, 50, false)
	check(4, 50, false)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 50; it++ {
				check(runtime.GOMAXPROCS(0)+1, 20, it%7 == 0)
			}
		}()
	}
	wg.Wait()
}

// TestRunShares checks that each goroutine of a loop starts on its own
// share of the indexes (the caller on [0, n/2), the helper on [n/2, n)),
// so a loop's items run where the same items of the last loop ran, and
// that a goroutine done with its share takes the rest of another's.
func TestRunShares(t *testing.T) {
	const n = 8
	wait := func(cond func() bool) bool {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
			if cond() {
				return true
			}
			runtime.Gosched()
		}
		return false
	}
	// index 0 (the caller's first) waits for the helper to start: its
	// first index must be the first of its share, not the next dealt out
	caller := goroutineID()
	var helperFirst atomic.Int32
	helperFirst.Store(-1)
	Run(2, n, func(i int) {
		if goroutineID() != caller {
			helperFirst.CompareAndSwap(-1, int32(i))
		}
		if i == 0 {
			wait(func() bool { return helperFirst.Load() >= 0 })
		}
	})
	if f := helperFirst.Load(); f != n/2 {
		t.Fatalf("the helper's first index: %d, want %d, the start of its share", f, n/2)
	}
	var ran atomic.Int32
	// the helper's first index waits for every other: the caller, done
	// with its share, must take the rest of the helper's (a helper late
	// to wake leaves the whole loop to the caller, which is no wait)
	stolen := true
	Run(2, n, func(i int) {
		ran.Add(1)
		if i == n/2 && goroutineID() != caller && !wait(func() bool { return ran.Load() == n }) {
			stolen = false
		}
	})
	if !stolen {
		t.Fatalf("the caller did not take the rest of the helper's share (ran %d of %d)", ran.Load(), n)
	}
}

// BenchmarkRunOverhead times a parallel loop of two trivial indexes on two
// threads back to back (the helper spinning between them): the fork-join
// cost a step pays for splitting.
func BenchmarkRunOverhead(b *testing.B) {
	var sink atomic.Int64
	for i := 0; i < b.N; i++ {
		Run(2, 2, func(i int) { sink.Add(int64(i)) })
	}
}

// TestHostThreads: a host that lends its thread count only (Run nil, the
// default inside PyTorch) sets how many parts loops are split for, and the
// loops run on the helpers; a host that lends its threads runs them; nil
// gives GOMAXPROCS back.
func TestHostThreads(t *testing.T) {
	defer SetHost(nil)
	n := 5
	SetHost(&Host{Threads: func() int { return n }})
	if got := Threads(); got != 5 {
		t.Fatalf("Threads() = %d with a host of 5 threads, want 5", got)
	}
	var sum atomic.Int64
	Run(Threads(), 100, func(i int) { sum.Add(int64(i)) })
	if sum.Load() != 4950 {
		t.Fatalf("sum %d over the helpers, want 4950", sum.Load())
	}
	lent := 0
	SetHost(&Host{Threads: func() int { return 3 }, Run: func(k int, body func()) bool {
		lent++
		body() // one host thread takes every index
		return true
	}})
	sum.Store(0)
	Run(Threads(), 100, func(i int) { sum.Add(int64(i)) })
	if sum.Load() != 4950 || lent != 1 {
		t.Fatalf("sum %d with %d host runs, want 4950 with 1", sum.Load(), lent)
	}
	SetHost(nil)
	if got := Threads(); got != runtime.GOMAXPROCS(0) {
		t.Fatalf("Threads() = %d without a host, want GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}

// goroutineID is the calling goroutine's number, from its stack's header.
func goroutineID() string {
	var buf [64]byte
	f := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}
