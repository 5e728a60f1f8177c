package runtime

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/torchtpu/torchtpu/cache"
)

// Options configure how a program is compiled and run: caches, the host
// fallback policy, bucketing of symbolic dims, debugging and reporting.
// The zero value is the default: memory cache on, no disk cache, host
// fallbacks allowed, exact shapes, warnings to stderr.
type Options struct {
	// CacheDir is the disk cache folder ("" means no disk cache; the CLI
	// passes cache.DefaultDir()). CacheMaxBytes bounds it (0: unbounded).
	CacheDir      string
	CacheMaxBytes int64
	// NoCache turns every cache off: memory, disk and per-signature plans.
	NoCache bool
	// Fallback is "cpu" (default: ops a device cannot lower run on the
	// host, counted) or "error" (such an op fails the run).
	Fallback string
	// Buckets pads symbolic dims up to a bucket size where the program
	// can mask the padding (see dynamic_bucket.go); nil means the device's
	// default: exact shapes on the native backend, XLADefaultBuckets on a
	// PJRT device.
	Buckets *BucketPolicy
	// DebugSync runs each segment synchronously and checks its results
	// (count, dtypes, shapes; NaN counts are reported on Log).
	DebugSync bool
	// Explain writes every recompile and its reason to Log.
	Explain bool
	// Log receives warnings and explanations (nil: os.Stderr).
	Log io.Writer
	// Progress, when set, receives a live line for compiles that take
	// over a second (the CLI sets it only when stderr is a terminal).
	Progress io.Writer
	// Trace records a Chrome trace of the run (see Program.WriteTrace).
	Trace bool
}

// rtState is the runtime state of a program beside its graph.
type rtState struct {
	opts    Options
	metrics *Metrics
	trace   *tracer
	mu      sync.Mutex
	diskC   *cache.Disk
	diskErr error
	dyn     dynState
	async   asyncState
}

// statesMu guards the lazy creation of Program.rt.
var statesMu sync.Mutex

// Configure sets the program's runtime options and resets its metrics.
func (p *Program) Configure(o Options) error {
	switch o.Fallback {
	case "", "cpu", "error":
	default:
		return fmt.Errorf("fallback policy %q: want cpu or error", o.Fallback)
	}
	st := &rtState{opts: o, metrics: newMetrics(), trace: newTracer(o.Trace)}
	if o.NoCache {
		p.NoCache = true
	}
	if o.Fallback != "" {
		p.Fallback = o.Fallback
	}
	statesMu.Lock()
	p.rt = st
	statesMu.Unlock()
	return nil
}

// state returns the program's runtime state (defaults if unconfigured).
func (p *Program) state() *rtState {
	statesMu.Lock()
	defer statesMu.Unlock()
	if p.rt == nil {
		p.rt = &rtState{metrics: newMetrics(), trace: newTracer(false)}
	}
	return p.rt
}

// Metrics returns what the program's runs did so far.
func (p *Program) Metrics() *Metrics { return p.state().metrics }

// disk opens the disk cache on first use; a failure is reported once and
// the run goes on without it.
func (st *rtState) disk() *cache.Disk {
	if st.opts.CacheDir == "" || st.opts.NoCache {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.diskC == nil && st.diskErr == nil {
		st.diskC, st.diskErr = cache.OpenDisk(st.opts.CacheDir, st.opts.CacheMaxBytes)
		if st.diskErr != nil {
			fmt.Fprintf(st.log(), "torchtpu: warning: disk cache off: %v\n", st.diskErr)
		}
	}
	return st.diskC
}

func (st *rtState) log() io.Writer {
	if st.opts.Log != nil {
		return st.opts.Log
	}
	return os.Stderr
}

func (st *rtState) logf(format string, args ...any) {
	fmt.Fprintf(st.log(), format, args...)
}
