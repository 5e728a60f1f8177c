package pool

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/torchtpu/torchtpu/backend/native/internal/rescue"
)

// Lending the host's threads for a whole run. Lent loop by loop (Host.Run
// per loop), every parallel loop pays the host's team start and a cgo
// callback per thread; not lent, the engine's helpers share the cores
// with the host's threads, which spin for a while after each of the
// host's own parallel regions (libgomp: inside PyTorch, right after the
// eager ops before a compiled graph: measured, GPT-2 inference in process
// 6.6 ms alone, 11.7 ms after eager steps). With PerRun, a run from the
// host's thread asks the host once for its threads: one runs the program,
// the others serve as the run's helpers until it ends, so the threads the
// host would spin on do the engine's loops and no other thread competes.

// lentRun is the run the host's threads are lent to.
type lentRun struct {
	main   atomic.Bool  // the call of body that runs the program has started
	done   atomic.Bool  // the program has returned
	next   atomic.Int32 // guests arrived
	guests []guestSlot
}

// guestSlot is one lent thread's mailbox: a loop's job, taken by CAS.
type guestSlot struct {
	here atomic.Bool
	job  atomic.Pointer[loopJob]
}

var lent atomic.Pointer[lentRun]

// guestPatience is how long a lent thread waits for the program to start
// on the caller's thread before it leaves.
const guestPatience = 50 * time.Millisecond

// Lend runs f with the host's threads lent as the run's helpers, when the
// host lends per run (Host.PerRun) and threads > 1; else it runs f as
// is. A panic of f is raised again on the caller's goroutine.
func Lend(f func()) {
	h := host.Load()
	threads := Threads()
	if h == nil || h.Run == nil || !h.PerRun || threads < 2 {
		f()
		return
	}
	lr := &lentRun{guests: make([]guestSlot, threads-1)}
	if !lent.CompareAndSwap(nil, lr) {
		f() // another run holds the host's threads (a second caller thread)
		return
	}
	defer lent.Store(nil)
	var caught rescue.First
	body := func() {
		// The program runs on the caller's thread (a host callback it
		// makes, into Python for one, belongs there), or, for a host that
		// cannot tell, on the first thread to arrive.
		caller := h.OnCaller == nil || h.OnCaller()
		if caller && lr.main.CompareAndSwap(false, true) {
			caught.Run(f)
			lr.done.Store(true)
			return
		}
		i := int(lr.next.Add(1) - 1)
		if i >= len(lr.guests) || lr.done.Load() {
			return
		}
		g := &lr.guests[i]
		g.here.Store(true)
		since, idle := time.Now(), time.Now()
		for spins := 0; !lr.done.Load(); spins++ {
			if serve(&g.job, i+1) {
				idle, spins = time.Now(), 0
				continue
			}
			if spins%loopYield != loopYield-1 {
				continue
			}
			if !lr.main.Load() && time.Since(since) > guestPatience {
				break // the program never started: a host that ran body off the caller's thread only
			}
			if time.Since(idle) >= Spin {
				// The guest holds a P while it waits: after a while without
				// a loop, it lets goroutines the run waits for (a future's,
				// a collective's) have it now and then. Not sooner: a
				// goroutine locked to its thread hands its P away and back
				// through two futex wake-ups when it yields.
				runtime.Gosched()
			}
		}
		g.here.Store(false)
	}
	if !h.Run(threads, body) || !lr.main.Load() {
		lr.done.Store(true)
		if !lr.main.Load() {
			f()
		}
	}
	caught.Raise()
}

// runLent runs j on the calling goroutine and the lent threads that are
// serving the current lent run; false when there is none, or none of its
// guests is here yet.
func runLent(j *loopJob, threads int) bool {
	lr := lent.Load()
	if lr == nil || lr.done.Load() {
		return false
	}
	k := min(threads-1, len(lr.guests))
	j.left.Store(int32(k))
	posted := 0
	for i := 0; i < k; i++ {
		g := &lr.guests[i]
		if g.here.Load() && g.job.CompareAndSwap(nil, j) {
			posted++
		} else {
			j.left.Add(-1)
		}
	}
	if posted == 0 {
		return false
	}
	j.work(0)
	for i := 0; i < k; i++ {
		if lr.guests[i].job.CompareAndSwap(j, nil) {
			j.left.Add(-1) // not taken: the caller did its share
		}
	}
	j.awaitHelpers()
	return true
}
