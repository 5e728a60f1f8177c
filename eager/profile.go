package eager

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Profiling: while it is on, the queue stamps every task it runs (an op,
// a fused block, a compiled program, a copy to or from the host) with the
// times it started and ended on the device's stream and the correlation
// tag its caller had set when it was enqueued (PyTorch's profiler: the
// aten op or record_function range that launched it). Those are the
// device's rows of a trace and the device times of the host's ops.
//
// Off, it costs one atomic load per enqueued task.

// Record is one task the device ran while profiling.
type Record struct {
	Name       string // the op ("aten::mm"), "fused block of N ops (…)", a program's name, "write to tpu"
	Kind       RecordKind
	Tag        uint64 // the caller's correlation tag (0: none)
	Start, End int64  // Unix nanoseconds
}

// RecordKind sorts records for a trace viewer.
type RecordKind int

// Record kinds.
const (
	KindOp      RecordKind = iota // one op's compiled program
	KindBlock                     // a fused block
	KindProgram                   // a compiled graph
	KindCopy                      // a copy between the host and the device
)

func (k RecordKind) String() string {
	return [...]string{"op", "block", "program", "copy"}[k]
}

// maxRecords bounds a profile's memory (about 100 bytes a record).
const maxRecords = 1 << 20

type profiler struct {
	on      atomic.Bool
	tag     atomic.Uint64 // the caller's current correlation tag
	mu      sync.Mutex
	recs    []Record
	dropped int64
	kinds   sync.Map // label -> RecordKind, for labels not known by their text
}

// tagNow is the tag a task enqueued now carries: the caller's tag + 1, or
// 0 when not profiling.
func (p *profiler) tagNow() uint64 {
	if !p.on.Load() {
		return 0
	}
	return p.tag.Load() + 1
}

// runTimed runs t, recording its device time when it was enqueued while
// profiling.
func (q *queue) runTimed(t *task) error {
	if t.tag == 0 || t.label == "event" {
		return runTask(t)
	}
	start := time.Now()
	err := runTask(t)
	q.prof.add(t.label, t.tag-1, start, time.Now())
	return err
}

// timed runs fn on the calling thread as a task labelled label would run
// on the queue (a program whose output shapes are known only after it
// ran), recording it while profiling.
func (q *queue) timed(label string, fn func() error) error {
	return q.runTimed(&task{label: label, run: fn, tag: q.prof.tagNow()})
}

func (p *profiler) add(label string, tag uint64, start, end time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on.Load() {
		return
	}
	if len(p.recs) >= maxRecords {
		p.dropped++
		return
	}
	p.recs = append(p.recs, Record{Name: label, Kind: p.kindOf(label), Tag: tag, Start: start.UnixNano(), End: end.UnixNano()})
}

func (p *profiler) kindOf(label string) RecordKind {
	switch {
	case label == "write to tpu" || label == "read from tpu":
		return KindCopy
	case strings.HasPrefix(label, "fused block"):
		return KindBlock
	}
	if k, ok := p.kinds.Load(label); ok {
		return k.(RecordKind)
	}
	return KindOp
}

// ProfileStart starts recording device times (dropping earlier records).
func (d *Device) ProfileStart() {
	p := &d.q.prof
	p.mu.Lock()
	p.recs, p.dropped = nil, 0
	p.on.Store(true)
	p.mu.Unlock()
}

// ProfileTag sets the correlation tag of the tasks enqueued from now on
// (PyTorch's profiler pushes one per op it records).
func (d *Device) ProfileTag(tag uint64) { d.q.prof.tag.Store(tag) }

// ProfileStop runs what is recorded and queued (the tasks enqueued while
// profiling finish first), stops recording and returns the records, in
// the order the tasks ran, and how many were dropped over the bound.
func (d *Device) ProfileStop(ctx context.Context) ([]Record, int64, error) {
	err := d.Drain(ctx, "profiler")
	p := &d.q.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	p.on.Store(false)
	recs, dropped := p.recs, p.dropped
	p.recs, p.dropped = nil, 0
	return recs, dropped, err
}
