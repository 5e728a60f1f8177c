package eager

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/runtime"
)

// Mode is how the eager device runs the ops it is given.
type Mode int

// The eager device's modes.
const (
	// Async (the default): ops are queued and run in order on the
	// device's stream while the caller goes on; a failure surfaces at the
	// next synchronisation (a read, synchronize()), naming the op.
	Async Mode = iota
	// Debug: each op runs before the call returns; a failure is the
	// call's error.
	Debug
	// Fused: ops are recorded and compiled in blocks, run when a value is
	// read, at synchronize() or when a block reaches its size bound.
	Fused
)

func (m Mode) String() string {
	switch m {
	case Debug:
		return "debug"
	case Fused:
		return "fused"
	}
	return "async"
}

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "async":
		return Async, nil
	case "debug", "sync":
		return Debug, nil
	case "fused":
		return Fused, nil
	}
	return Async, fmt.Errorf("mode %q: want \"async\", \"debug\" or \"fused\"", s)
}

// Options configure the eager device (JSON across the C ABI, see
// Configure; every field optional).
type Options struct {
	// Backend serves the device: "cpu" (the native backend, default),
	// "xla-cpu", "tpu", "cuda" (PJRT plugins).
	Backend string `json:"backend"`
	// Mode is "async" (default), "debug" or "fused".
	Mode string `json:"mode"`
	// FusedMaxOps bounds a fused block (0: DefaultFusedMaxOps).
	FusedMaxOps int `json:"fused_max_ops"`
}

// DefaultFusedMaxOps is fused mode's bound on a block. A block that
// reaches it is flushed: it runs on the device's worker while the caller
// records the next one, so that a step's blocks overlap its recording and
// only the last waits at the step's read. Small enough that a training
// step splits into a few blocks (the tiny GPT of device_bench's step
// records ~160 ops: 48 gives four), large enough that each block's run is
// worth a thread's wake-up.
const DefaultFusedMaxOps = 48

// Device is the eager device: buffers, the op-signature cache, the
// stream, the modes.
type Device struct {
	mu      sync.Mutex
	host    Host
	b       backend.Backend
	opts    Options
	mode    Mode
	maxOps  int
	q       *queue
	ops     []*eagerOp
	opIndex map[string]int32
	plans   map[string]*plan
	dec     decoder
	args    []earg // decoded arguments of the current call (scratch)
	fuse    *fusion
	blocks  map[string]*fusedBlock
	flushes map[string]int64 // fused blocks run, by what flushed them
	planSeq uint64
	call    callWords // the call being recorded (fused mode)
	// follow is the block that ran after each block last time (after
	// nil: the first), which the next block is expected to replay.
	follow    map[*fusedBlock]*fusedBlock
	prevBlock *fusedBlock

	allocated, peak int64
	stats           Stats
	runNanos        atomic.Int64 // time in compiled programs (single ops and blocks)
	blockNanos      atomic.Int64 // of which fused blocks
	// memory recycled between results (queue side)
	pool bytePool

	// ballast raises the Go heap's collection target: an eager program
	// allocates a little garbage per op (arguments, run state), and with
	// few live bytes the collector would run every few milliseconds. Its
	// pages are never written, so it costs address space, not memory.
	ballast []byte
}

// Stats count what the eager device did.
type Stats struct {
	Ops           int64 `json:"ops"`
	PlanHits      int64 `json:"plan_hits"`
	PlanMisses    int64 `json:"plan_misses"`
	Resizes       int64 `json:"out_resizes"`
	HostKernels   int64 `json:"host_kernels"`
	Buffers       int64 `json:"buffers"`
	Uploads       int64 `json:"uploads"`
	UploadBytes   int64 `json:"upload_bytes"`
	Downloads     int64 `json:"downloads"`
	DownloadBytes int64 `json:"download_bytes"`
	Programs      int64 `json:"programs"`
	Blocks        int64 `json:"fused_blocks"`
	BlockOps      int64 `json:"fused_ops"`
	BlockCompiles int64 `json:"fused_compiles"`
	// ReplayedOps are the calls recorded by replay (replay.go): checked
	// against a compiled block's call, no key built, no plan looked up;
	// ReplayedBlocks the blocks that repeated a compiled one to the end.
	ReplayedOps    int64 `json:"replayed_ops"`
	ReplayedBlocks int64 `json:"replayed_blocks"`
}

// New opens an eager device on the backend the options name. host names
// its buffers to the caller (handles) and reads the CPU tensors ops are
// passed; the C ABI keeps one device per process (capi.EagerDevice).
func New(opts Options, host Host) (*Device, error) {
	if host == nil {
		return nil, fmt.Errorf("eager device: no host")
	}
	d := &Device{host: host, q: newQueue(), opIndex: map[string]int32{}, plans: map[string]*plan{}, blocks: map[string]*fusedBlock{}, flushes: map[string]int64{},
		ballast: make([]byte, 64<<20)}
	d.dec.host = host
	if err := d.apply(opts); err != nil {
		return nil, err
	}
	return d, nil
}

// apply sets the options. d.mu is held (or d is new).
func (d *Device) apply(o Options) error {
	if o.Backend == "" {
		o.Backend = "cpu"
	}
	m, err := ParseMode(o.Mode)
	if err != nil {
		return err
	}
	if o.FusedMaxOps < 0 {
		return fmt.Errorf("fused_max_ops %d is negative", o.FusedMaxOps)
	}
	if d.b == nil || d.b.Name() != o.Backend {
		if d.allocated > 0 || d.stats.Buffers > 0 {
			return fmt.Errorf("backend %q: the device already holds buffers on %q; choose the backend before the first tensor", o.Backend, d.b.Name())
		}
		b, err := backend.Open(o.Backend)
		if err != nil {
			return err
		}
		d.b = b
		d.plans = map[string]*plan{}
		d.blocks = map[string]*fusedBlock{}
		d.follow, d.prevBlock = nil, nil
		if d.fuse != nil {
			d.fuse.rp = nil
		}
	}
	d.opts, d.mode, d.maxOps = o, m, o.FusedMaxOps
	if m == Fused && d.fuse == nil {
		d.fuse = newFusion()
	}
	if d.maxOps == 0 {
		d.maxOps = DefaultFusedMaxOps
	}
	o.Mode = m.String()
	d.opts = o
	return nil
}

// Configure changes the device's options (JSON; omitted fields keep their
// values). Pending work is finished first.
func (d *Device) Configure(ctx context.Context, js []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.opts
	js = bytes.TrimSpace(js)
	if len(js) > 0 && string(js) != "null" {
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return fmt.Errorf("device options %s: %w", truncate(string(js), 200), err)
		}
	}
	if err := d.flush("configure"); err != nil {
		return err
	}
	if err := d.q.sync(ctx); err != nil {
		return err
	}
	return d.apply(o)
}

// enqueue runs fn as the device's next task: at once in debug mode
// (returning its error), queued otherwise. d.mu is held.
func (d *Device) enqueue(label string, fn func() error) error {
	if d.mode == Debug {
		if err := d.q.sync(context.Background()); err != nil {
			return err
		}
		return d.q.runTimed(&task{label: label, run: fn, tag: d.q.prof.tagNow()})
	}
	d.q.push(label, fn, nil)
	return nil
}

// enqueueWork is enqueue for a task worth waking the worker for on its
// own (queue.pushWork).
func (d *Device) enqueueWork(label string, fn func() error) error {
	if d.mode == Debug {
		return d.enqueue(label, fn)
	}
	d.q.pushWork(label, fn, nil)
	return nil
}

// enqueueRun is enqueue for a runner; work (a compiled program) wakes
// the worker at once, as enqueueWork.
func (d *Device) enqueueRun(label string, r runner, work bool) error {
	if d.mode == Debug {
		if err := d.q.sync(context.Background()); err != nil {
			return err
		}
		return d.q.runTimed(&task{label: label, r: r, tag: d.q.prof.tagNow()})
	}
	if work {
		d.q.pushWork(label, nil, r)
	} else {
		d.q.push(label, nil, r)
	}
	return nil
}

// Synchronize runs every recorded op and waits for the queue; it returns
// the first failure of an op that ran asynchronously.
func (d *Device) Synchronize(ctx context.Context) error {
	d.mu.Lock()
	err := d.flush("synchronize")
	d.mu.Unlock()
	if err != nil {
		return err
	}
	return d.q.sync(ctx)
}

// Drain runs every recorded op and waits for the queue, leaving the
// failure of an op that ran asynchronously for the next synchronisation.
func (d *Device) Drain(ctx context.Context, why string) error {
	d.mu.Lock()
	err := d.flush(why)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	d.q.mu.Lock()
	seq := d.q.next
	d.q.mu.Unlock()
	return d.q.wait(ctx, seq)
}

// RecordEvent marks the current end of the stream and returns the mark.
func (d *Device) RecordEvent() (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.flush("event"); err != nil {
		return 0, err
	}
	return d.q.mark(), nil
}

// EventQuery reports whether the work before event seq is done.
func (d *Device) EventQuery(seq uint64) bool { return d.q.query(seq) }

// EventWait waits for the work before event seq.
func (d *Device) EventWait(ctx context.Context, seq uint64) error { return d.q.wait(ctx, seq) }

// EventElapsed returns the milliseconds between two events.
func (d *Device) EventElapsed(ctx context.Context, a, b uint64) (float64, error) {
	ta, err := d.q.stamp(ctx, a)
	if err != nil {
		return 0, err
	}
	tb, err := d.q.stamp(ctx, b)
	if err != nil {
		return 0, err
	}
	return float64(tb.Sub(ta).Nanoseconds()) / 1e6, nil
}

// EventRelease forgets event seq's timing.
func (d *Device) EventRelease(seq uint64) { d.q.forget(seq) }

// Backend returns the name of the backend serving the device ("cpu", ...).
func (d *Device) Backend() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.b.Name()
}

// Memory returns the bytes held by live buffers and their peak.
func (d *Device) Memory() (allocated, peak int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.allocated, d.peak
}

// ResetPeak sets the peak to the current allocation.
func (d *Device) ResetPeak() {
	d.mu.Lock()
	d.peak = d.allocated
	d.mu.Unlock()
}

// StatsJSON reports the device: options, memory, counters, the engine's
// compile counts, and the ops it declined with the reason.
func (d *Device) StatsJSON() ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	type declined struct {
		Op     string `json:"op"`
		Reason string `json:"reason"`
		Count  int64  `json:"count"`
	}
	var dec []declined
	for _, op := range d.ops {
		if op.declined > 0 {
			dec = append(dec, declined{Op: op.name, Reason: op.reason, Count: op.declined})
		}
	}
	sort.Slice(dec, func(i, j int) bool { return dec[i].Op < dec[j].Op })
	snap := runtime.EagerMetrics().Snapshot()
	return json.Marshal(map[string]any{
		"backend":       d.b.Name(),
		"mode":          d.mode.String(),
		"allocated":     d.allocated,
		"peak":          d.peak,
		"stats":         d.stats,
		"compiles":      snap.Compiles,
		"cache_hits":    snap.CacheHits,
		"declined":      dec,
		"signatures":    len(d.plans),
		"flushes":       d.flushes,
		"live_handles":  d.host.Live(),
		"fused_max_ops": d.maxOps,
		"run_ms":        float64(d.runNanos.Load()) / 1e6,
		"block_run_ms":  float64(d.blockNanos.Load()) / 1e6,
		// results computed into memory the pool took back (bytePool)
		"results_recycled": d.pool.recycled(),
	})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
