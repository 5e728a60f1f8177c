// Package pool runs the native backend's parallel loops (the
// convolutions', the fused, elementwise, reduction, pooling and dot loops,
// and the GEMM's) on helper goroutines that stay awake for a while after
// each loop — or, when the engine is hosted by a process that has a
// thread pool of its own (PyTorch's intra-op threads), on the host's
// threads (see SetHost), so that one pool of threads serves the process.
package pool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/torchtpu/torchtpu/backend/native/internal/rescue"
)

// A goroutine started per
// loop costs the wake-up of an idle thread, which on a virtual machine
// takes ~0.1-0.3 ms: at batch 1 that was ~0.3 ms of a core idle in each
// of a ResNet-18 run's ~30 convolutions, an eighth of its wall time.
// Between loops a helper yields its thread (runtime.Gosched) for up to
// Spin, then sleeps until the next loop wakes it.

// Spin is how long a helper stays awake after a loop: longer than the
// gaps between a model's loops, short enough to cost nothing once the
// model is done.
const Spin = 300 * time.Microsecond

// A panic in f on any goroutine (a helper's included) stops the loop from
// handing out more indexes and is raised again on the caller's goroutine
// once every helper is done with the loop, where the run turns it into an
// error; a helper lives on for the next loop.

// loopJob is one parallel loop: f(0) … f(n-1). Each goroutine of the
// loop (the caller 0, helper or lent thread t the t-th) owns a contiguous
// share of the indexes, [t·n/T, (t+1)·n/T), and takes them in turn; done
// with its own, it takes what is left of the others' shares, the next
// goroutine's first. So a loop's items run where the same items of the
// last loop ran (a layer repeated, or the next over the same data), their
// data still in that core's cache, instead of being dealt out in the
// order the goroutines come back for more.
type loopJob struct {
	f        func(i int)
	n        int64
	parts    []partCursor // one per goroutine of the loop
	arrivals atomic.Int32 // goroutines that came without a number (a host's)
	left     atomic.Int32 // helpers that have not finished with the job
	caught   rescue.First
}

// partCursor is one goroutine's share of a loop: the next index to take
// and the end, alone in a cache line.
type partCursor struct {
	next atomic.Int64
	end  int64
	_    [48]byte
}

// jobs recycles loopJobs: a helper touches a job only while it counts in
// left (or to compare the pointer in its slot), so once Run has waited
// for the helpers the job is free.
var jobs = sync.Pool{New: func() any { return new(loopJob) }}

func newJob(f func(i int), n, threads int) *loopJob {
	j := jobs.Get().(*loopJob)
	j.f, j.n = f, int64(n)
	if cap(j.parts) < threads {
		j.parts = make([]partCursor, threads)
	}
	j.parts = j.parts[:threads]
	for t := range j.parts {
		j.parts[t].next.Store(int64(t * n / threads))
		j.parts[t].end = int64((t + 1) * n / threads)
	}
	j.arrivals.Store(0)
	j.caught = rescue.First{}
	return j
}

func freeJob(j *loopJob) {
	j.f = nil
	jobs.Put(j)
}

// work runs indexes of j as goroutine t until none is left, keeping a
// panic of f for the caller of Run.
func (j *loopJob) work(t int) {
	if !j.caught.Run(func() { j.run(t) }) {
		for i := range j.parts { // hand out no more indexes
			j.parts[i].next.Store(j.parts[i].end)
		}
	}
}

func (j *loopJob) run(t int) {
	parts := len(j.parts)
	for k := 0; k < parts; k++ {
		c := &j.parts[(t+k)%parts]
		for {
			i := c.next.Add(1) - 1
			if i >= c.end {
				break
			}
			j.f(int(i))
		}
	}
}

// anyone is the goroutine number of a call of the loop that came without
// one: the next not yet taken, in order of arrival.
func (j *loopJob) anyone() int {
	return int(j.arrivals.Add(1)-1) % len(j.parts)
}

type loopHelper struct {
	id     int // its goroutine number in a loop (1, 2, …)
	job    atomic.Pointer[loopJob]
	asleep atomic.Bool
	wake   chan struct{} // a token after job is set while asleep
}

// loopPool holds the helpers; a loop takes all it needs, so a second loop
// at the same time (nested, or another program's) starts goroutines.
var loopPool struct {
	sync.Mutex
	helpers []*loopHelper
}

func (h *loopHelper) loop() {
	idle := time.Now()
	for spins := 0; ; spins++ {
		if serve(&h.job, h.id) {
			idle, spins = time.Now(), 0
			continue
		}
		if spins%loopYield != loopYield-1 {
			continue // spin on the load: nothing shared is written
		}
		if time.Since(idle) < Spin {
			runtime.Gosched() // now and then, for any other goroutine
			continue
		}
		// either this sees the job or the poster sees asleep and sends
		// a token (a stale token costs one more round of the loop)
		h.asleep.Store(true)
		if h.job.Load() == nil {
			<-h.wake
		}
		h.asleep.Store(false)
		idle = time.Now()
	}
}

// Counters for the profile: parallel loops run (split over two goroutines
// or more), and, while accounting is on (Account), the time helpers spent
// running their indexes (the caller's share is its own time).
var (
	loops      atomic.Int64
	helperBusy atomic.Int64 // nanoseconds
	accounting atomic.Bool
)

// Account turns the accounting of helpers' busy time on or off.
func Account(on bool) { accounting.Store(on) }

// Counters returns the parallel loops run so far and the time helpers
// spent in them while accounting was on.
func Counters() (parallelLoops int64, helpers time.Duration) {
	return loops.Load(), time.Duration(helperBusy.Load())
}

// workTimed is j.work, its time added to helperBusy when accounting.
func (j *loopJob) workTimed(id int) {
	if !accounting.Load() {
		j.work(id)
		return
	}
	t := time.Now()
	j.work(id)
	helperBusy.Add(int64(time.Since(t)))
}

// loopYield is the polls of a spinning helper between two looks at the
// clock (and yields of its thread).
const loopYield = 1024

// Run runs f(0) … f(n-1) on up to threads goroutines (the caller's
// included), each taking the indexes of its share in order and then
// what is left of the others' (see loopJob), and returns when all are
// done. Indexes may run on fewer goroutines than
// threads (all on the caller's, when the helpers are slow to wake): f must
// not wait for another index.
func Run(threads, n int, f func(i int)) {
	threads = min(threads, n)
	if threads <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	loops.Add(1)
	j := newJob(f, n, threads)
	defer freeJob(j)
	if runLent(j, threads) {
		j.caught.Raise()
		return
	}
	if h := host.Load(); h != nil && h.Run != nil && !h.PerRun && h.run(threads, func() { j.work(j.anyone()) }) {
		j.caught.Raise()
		return
	}
	if !loopPool.TryLock() {
		var wg sync.WaitGroup
		for t := 1; t < threads; t++ {
			wg.Add(1)
			go func() { defer wg.Done(); j.workTimed(t) }()
		}
		j.work(0)
		wg.Wait()
		j.caught.Raise()
		return
	}
	defer loopPool.Unlock()
	for len(loopPool.helpers) < threads-1 {
		h := &loopHelper{id: len(loopPool.helpers) + 1, wake: make(chan struct{}, 1)}
		loopPool.helpers = append(loopPool.helpers, h)
		go h.loop()
	}
	helpers := loopPool.helpers[:threads-1]
	j.left.Store(int32(len(helpers)))
	for _, h := range helpers {
		h.job.Store(j)
		if h.asleep.Load() {
			select {
			case h.wake <- struct{}{}:
			default:
			}
		}
	}
	j.work(0)
	// a helper that has not taken the job yet (still waking) is not waited for
	for _, h := range helpers {
		if h.job.CompareAndSwap(j, nil) {
			j.left.Add(-1)
		}
	}
	j.awaitHelpers()
	j.caught.Raise()
}

// serve runs the job posted in slot, if there is one (taken by CAS, so
// that the poster can take back a job no helper took), and reports
// whether it did.
func serve(slot *atomic.Pointer[loopJob], id int) bool {
	j := slot.Load()
	if j == nil || !slot.CompareAndSwap(j, nil) {
		return false
	}
	j.workTimed(id)
	j.left.Add(-1)
	return true
}

// awaitHelpers waits until every helper that took j is done with it, on
// the count and without yielding the thread for up to Spin: a goroutine
// called from C (the Python package's calls through the C ABI) is locked
// to its thread, and each runtime.Gosched of a locked goroutine hands its
// P to another thread and back, two futex wake-ups (tens of microseconds
// on a virtual machine) at the end of every parallel loop. The helpers
// that took the job run on Ps of their own, so the wait needs none of the
// caller's.
func (j *loopJob) awaitHelpers() {
	waitSince := time.Now()
	for spins := 0; j.left.Load() > 0; spins++ {
		if spins%loopYield == loopYield-1 && time.Since(waitSince) >= Spin {
			runtime.Gosched()
		}
	}
}

// Host is a host process's thread pool lent to the engine.
type Host struct {
	// Run calls body on up to n of the host's threads at once, the
	// calling thread included, and returns true once every call has
	// returned; or it returns false without calling body when it cannot
	// lend its threads from the calling thread (a thread of the engine's
	// own, or one already inside a parallel region of the host's). Each
	// call of body takes indexes of the loop until none is left, so the
	// host may call it on fewer threads than n.
	Run func(n int, body func()) bool
	// Threads is the number of threads the host runs its own loops on
	// (torch.get_num_threads()).
	Threads func() int
	// PerRun lends the threads for a whole run (Lend) instead of loop by
	// loop.
	PerRun bool
	// OnCaller reports whether the calling thread is the one that asked
	// the host for its threads (nil: the host cannot tell).
	OnCaller func() bool
}

type hostPool struct{ Host }

func (h *hostPool) run(n int, body func()) bool { return h.Run(n, body) }

var host atomic.Pointer[hostPool]

// SetHost lends the host's thread pool to every later loop (nil: the
// helper goroutines again). Loops the host declines run on the helpers.
// A Host with Threads and no Run keeps the loops on the helpers, split
// for the host's thread count.
func SetHost(h *Host) {
	if h == nil || h.Run == nil && h.Threads == nil {
		host.Store(nil)
		return
	}
	host.Store(&hostPool{*h})
}

// Threads is how many threads a loop should be split for: the host's
// count when a host lends its pool, else GOMAXPROCS.
func Threads() int {
	if h := host.Load(); h != nil && h.Threads != nil {
		if n := h.Threads(); n > 0 {
			return n
		}
	}
	return runtime.GOMAXPROCS(0)
}
