package capi

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// The Go collector inside a host process. By default it collects whenever
// garbage reaches the live heap's size (GOGC=100). Inside PyTorch the Go
// heap holds little that lives (the plans; tensors are PyTorch's), while a
// training step allocates tens of MB of results and scratch, so the
// default collects several times per run. After each run the library sets
// the growth target so that about four runs' allocations fit between
// collections, never below the default: a large live heap (a program's
// weights) keeps GOGC's 100%, a small one gets room for its runs. GOGC or
// GOMEMLIMIT in the environment turn this off.

var heapTuning = struct {
	sync.Mutex
	off     bool
	percent int
	samples []metrics.Sample
}{off: os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "", percent: 100,
	samples: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}}

// maxGCPercent bounds the growth target (20× the live heap).
const maxGCPercent = 2000

// runsBetweenGC is how many runs' allocations the headroom is sized for.
const runsBetweenGC = 4

// tuneEvery is how many runs pass between two tunings: reading the
// runtime's metrics costs about a microsecond, which small graphs notice.
const tuneEvery = 8

var tuneTick atomic.Uint32

// heapMark returns the bytes allocated so far, for tuneHeap, or 0 on the
// runs that do not tune.
func heapMark() uint64 {
	if heapTuning.off || tuneTick.Add(1)%tuneEvery != 1 {
		return 0
	}
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// tuneHeap sets the growth target after a run that started at mark (0:
// a run that does not tune).
func tuneHeap(mark uint64) {
	if heapTuning.off || mark == 0 {
		return
	}
	heapTuning.Lock()
	defer heapTuning.Unlock()
	metrics.Read(heapTuning.samples)
	allocs, live := heapTuning.samples[0].Value.Uint64(), heapTuning.samples[1].Value.Uint64()
	if live == 0 || allocs < mark {
		return
	}
	want := 100 * runsBetweenGC * float64(allocs-mark) / float64(live)
	pct := max(100, min(maxGCPercent, int(want)))
	// move only on a clear change, to keep SetGCPercent (which stops the
	// world briefly) off the common path
	if pct > heapTuning.percent*5/4 || pct < heapTuning.percent*3/4 {
		heapTuning.percent = pct
		debug.SetGCPercent(pct)
	}
}
