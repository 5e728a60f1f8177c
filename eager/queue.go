package eager

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// queue is the eager device's stream: work runs in the order it was
// enqueued, on one goroutine, while the caller goes on dispatching. Tasks
// are numbered from 1; done is the number of the last one finished. A
// failed task records the first error (with the op that failed), which
// the next synchronisation returns and clears.
type queue struct {
	mu      sync.Mutex
	cond    sync.Cond
	tasks   []task
	next    uint64 // number of the last task enqueued
	done    uint64 // number of the last task finished
	err     error  // first failure since the last sync
	running bool   // the worker goroutine is started
	idle    bool   // the worker waits for work
	stamps  map[uint64]time.Time
	prof    profiler // device times of tasks, while profiling
}

// task is one unit of queued work. label names it in errors ("aten::mm").
// tag is the caller's profiler correlation tag when it was enqueued, +1
// (0: not profiled).
type task struct {
	seq   uint64
	label string
	run   func() error
	r     runner
	tag   uint64
}

// runner is queued work as a value (an op's run): no closure to allocate.
type runner interface{ Run() error }

// batch is how many queued tasks wake an idle worker. Fewer wait for a
// synchronisation (or more work): waking a thread per small op costs more
// than the op, and an async caller goes on meanwhile.
const batch = 16

func newQueue() *queue {
	q := &queue{stamps: map[uint64]time.Time{}}
	q.cond.L = &q.mu
	return q
}

// push enqueues run (or r) and returns its number.
func (q *queue) push(label string, run func() error, r runner) uint64 {
	return q.pushTask(label, run, r, batch)
}

// pushWork is push for a task worth a thread's wake-up on its own (a
// fused block, a compiled program): an idle worker starts on it at once,
// so that it runs while the caller records or dispatches what follows.
func (q *queue) pushWork(label string, run func() error, r runner) uint64 {
	return q.pushTask(label, run, r, 1)
}

// pushTask enqueues a task, waking an idle worker once wake tasks wait.
func (q *queue) pushTask(label string, run func() error, r runner, wake int) uint64 {
	q.mu.Lock()
	q.next++
	seq := q.next
	q.tasks = append(q.tasks, task{seq: seq, label: label, run: run, r: r, tag: q.prof.tagNow()})
	if !q.running {
		q.running = true
		go q.work()
	} else if q.idle && len(q.tasks) >= wake {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
	return seq
}

// work runs tasks in order, taking them in batches.
func (q *queue) work() {
	var batch []task
	for {
		q.mu.Lock()
		for len(q.tasks) == 0 {
			q.idle = true
			q.cond.Wait()
		}
		q.idle = false
		batch = append(batch[:0], q.tasks...)
		q.tasks = q.tasks[:0]
		q.mu.Unlock()
		for i := range batch {
			t := &batch[i]
			err := q.runTimed(t)
			q.mu.Lock()
			if err != nil && q.err == nil {
				q.err = err
			}
			q.done = t.seq
			if _, ok := q.stamps[t.seq]; ok {
				q.stamps[t.seq] = time.Now()
			}
			q.cond.Broadcast()
			q.mu.Unlock()
			batch[i] = task{}
		}
	}
}

// runTask runs t, turning a panic into an error naming the task.
func runTask(t *task) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error (please report): %v%s", t.label, r, panicSite())
		}
	}()
	if t.r != nil {
		err = t.r.Run()
	} else {
		err = t.run()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t.label, err)
	}
	return nil
}

// wait blocks until task seq is finished (or ctx ends).
func (q *queue) wait(ctx context.Context, seq uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() {
			q.mu.Lock()
			q.cond.Broadcast()
			q.mu.Unlock()
		})
		defer stop()
	}
	for q.done < seq {
		if err := ctx.Err(); err != nil {
			return err
		}
		if q.idle {
			q.cond.Broadcast() // the worker may be waiting for a full batch
		}
		q.cond.Wait()
	}
	return nil
}

// sync waits for every task enqueued so far and returns (and clears) the
// first error since the last sync.
func (q *queue) sync(ctx context.Context) error {
	q.mu.Lock()
	seq := q.next
	q.mu.Unlock()
	if err := q.wait(ctx, seq); err != nil {
		return err
	}
	return q.failure()
}

// finished returns the number of the last task finished.
func (q *queue) finished() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.done
}

// last returns the number of the last task enqueued.
func (q *queue) last() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.next
}

// failure returns (and clears) the first error of a finished task since
// the last synchronisation.
func (q *queue) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	err := q.err
	q.err = nil
	if err != nil {
		return fmt.Errorf("an op that ran asynchronously failed: %w", err)
	}
	return nil
}

// mark enqueues an empty task whose finishing time is recorded (an event)
// and returns its number.
func (q *queue) mark() uint64 {
	q.mu.Lock()
	q.next++
	seq := q.next
	q.stamps[seq] = time.Time{}
	q.tasks = append(q.tasks, task{seq: seq, label: "event", run: func() error { return nil }})
	if !q.running {
		q.running = true
		go q.work()
	} else if q.idle {
		q.cond.Broadcast() // timing: an event runs when recorded
	}
	q.mu.Unlock()
	return seq
}

// query reports whether task seq is finished.
func (q *queue) query(seq uint64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.done >= seq
}

// stamp returns the time event seq finished (waiting for it).
func (q *queue) stamp(ctx context.Context, seq uint64) (time.Time, error) {
	if err := q.wait(ctx, seq); err != nil {
		return time.Time{}, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.stamps[seq]
	if !ok {
		return time.Time{}, fmt.Errorf("event %d was not recorded with timing", seq)
	}
	return t, nil
}

// forget drops the timing of event seq.
func (q *queue) forget(seq uint64) {
	q.mu.Lock()
	delete(q.stamps, seq)
	q.mu.Unlock()
}

// panicSite returns " at FILE:LINE" of the frame that panicked, read from
// the stack while the panic unwinds (the first frame below panic(…)
// outside Go's runtime), or "".
func panicSite() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	// goroutine N [running]:, then pairs of (function, \tFILE:LINE +0xPC)
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
		return " at " + loc
	}
	return ""
}
