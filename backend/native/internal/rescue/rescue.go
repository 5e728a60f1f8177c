// Package rescue carries a panic from a worker goroutine back to the
// goroutine that waits for the worker. The native backend's parallel loops
// (the helper pool, the GEMM's workers, the copy workers) run kernels on
// helper goroutines; a panic there would end the whole process (a Python
// process, when the engine runs behind the C ABI) because nothing up that
// goroutine's stack recovers it. Each worker runs under First.Run instead,
// and the waiting goroutine calls First.Raise after the workers are done,
// where the run's own recover (native's callSingle, the runtime, the C
// ABI's guard) turns the panic into an error.
package rescue

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
)

// Panic is a panic caught on a worker goroutine: its value and the place
// it was raised (FILE:LINE of the innermost frame outside the Go runtime).
type Panic struct {
	Value any
	Site  string
}

func (p *Panic) Error() string {
	if p.Site == "" {
		return fmt.Sprintf("worker goroutine: %v", p.Value)
	}
	return fmt.Sprintf("worker goroutine: %v (at %s)", p.Value, p.Site)
}

// Unwrap returns the panic value when it is an error (a runtime.Error for
// an index out of range, say).
func (p *Panic) Unwrap() error {
	e, _ := p.Value.(error)
	return e
}

// First keeps the first panic of a group of workers. The zero value is
// ready; it is safe for concurrent use.
type First struct {
	p atomic.Pointer[Panic]
}

// Run calls f and reports whether it returned normally. A panic in f is
// kept (the first one of the group) instead of unwinding further.
func (c *First) Run(f func()) (ok bool) {
	defer func() {
		if !ok {
			c.keep(recover())
		}
	}()
	f()
	return true
}

func (c *First) keep(r any) {
	if r == nil { // runtime.Goexit, not a panic
		return
	}
	p, ok := r.(*Panic) // raised again by a nested group: keep its site
	if !ok {
		p = &Panic{Value: r, Site: site(debug.Stack())}
	}
	c.p.CompareAndSwap(nil, p)
}

// Caught reports whether a worker has panicked.
func (c *First) Caught() bool { return c.p.Load() != nil }

// Raise panics with the first kept panic, if any, on the calling goroutine.
// Call it once every worker of the group has returned.
func (c *First) Raise() {
	if p := c.p.Load(); p != nil {
		panic(p)
	}
}

// site returns FILE:LINE of the frame that panicked in stack (debug.Stack's
// text, taken by the deferred recover while the panic unwinds): the first
// frame below panic(…) outside the Go runtime, or "".
func site(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	// goroutine N [running]:, then pairs of (function, \tFILE:LINE +0xPC);
	// the frames above panic(…) are the deferred function's
	below := false
	for i := 1; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if !below {
			below = strings.HasPrefix(fn, "panic(")
			continue
		}
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "runtime/") {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(loc, " +0x"); j > 0 {
			loc = loc[:j]
		}
		if k := strings.Index(loc, "torchtpu/"); k >= 0 {
			loc = loc[k:]
		}
		return loc
	}
	return ""
}
