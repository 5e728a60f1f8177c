package native

import "github.com/torchtpu/torchtpu/backend/native/internal/pool"

// HostPool is a host process's thread pool lent to the native backend:
// inside PyTorch, its intra-op threads. Lent, the backend's parallel loops
// run on the host's threads instead of the backend's own helper
// goroutines, so that the process has one pool: two pools on the same
// cores each spin after their loops while the other wants the cores
// (measured inside PyTorch: libgomp's spin-wait and the helpers' wait took
// 15% and 12% of a compiled training loop's samples).
type HostPool struct {
	// Run calls body on up to n of the host's threads at once, the calling
	// thread included, and returns true when every call has returned; or it
	// returns false without calling body when it cannot lend threads from
	// the calling thread (then the loop runs on the backend's helpers).
	// Nil: the loops run on the backend's helpers, split for Threads.
	Run func(n int, body func()) bool
	// Threads is the host's thread count (torch.get_num_threads()), which
	// loops are split for.
	Threads func() int
	// PerRun lends the host's threads for a whole run (Lend) instead of
	// loop by loop.
	PerRun bool
	// OnCaller reports whether the calling thread is the host's thread
	// that made the run: the program runs there.
	OnCaller func() bool
}

// SetHostPool lends h to every later loop; nil gives the loops back to
// the backend's helper goroutines.
func SetHostPool(h *HostPool) {
	if h == nil {
		pool.SetHost(nil)
		return
	}
	pool.SetHost(&pool.Host{Run: h.Run, Threads: h.Threads, PerRun: h.PerRun, OnCaller: h.OnCaller})
}

// Lend runs f (a run called from the host's thread) with the host's
// threads lent as its loops' helpers for the whole run when the host pool
// lends per run; else it runs f as is.
func Lend(f func()) { pool.Lend(f) }

// ParallelLoops counts the parallel loops run so far in the process (a
// caller compares it before and after a run to learn whether the run had
// any).
func ParallelLoops() int64 {
	n, _ := pool.Counters()
	return n
}

// Threads is the number of threads the backend splits its loops for: the
// host's when a host lends its pool, else GOMAXPROCS.
func Threads() int { return pool.Threads() }
