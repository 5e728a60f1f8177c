package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/cache"
	"github.com/torchtpu/torchtpu/runtime"
)

// runtimeFlags are the flags run, verify and bench share: the compile
// cache, the fallback policy, bucketing, debugging and reports.
type runtimeFlags struct {
	cacheDir   *string
	cacheMaxMB *int64
	noCache    *bool
	buckets    *string
	debugSync  *bool
	explain    *bool
	verbose    *bool
	metrics    *string
	trace      *string
	fallback   *string
}

// addRuntimeFlags defines the shared flags on fs.
func addRuntimeFlags(fs *flag.FlagSet) *runtimeFlags {
	f := &runtimeFlags{}
	f.cacheDir = fs.String("cache-dir", cache.DefaultDir(), "compile cache folder ($TORCHTPU_CACHE_DIR overrides the default)")
	f.cacheMaxMB = fs.Int64("cache-max-mb", 1024, "size cap of the disk cache in MiB (least recently used entries go first; 0: no cap)")
	f.noCache = fs.Bool("no-cache", false, "compile everything again: no memory, disk or per-shape cache")
	f.buckets = fs.String("buckets", "", "pad symbolic dims up to buckets where the program can mask the padding: pow2, sizes such as 8,16,32,\nor exact (default: exact on cpu, pow2 on PJRT devices)")
	f.debugSync = fs.Bool("debug-sync", false, "run each segment synchronously and check its results (dtypes, shapes, NaN counts)")
	fs.BoolVar(f.debugSync, "sync", false, "same as --debug-sync")
	f.explain = fs.Bool("explain-recompiles", false, "print every recompile and its reason on stderr")
	f.verbose = fs.Bool("v", false, "verbose: explain recompiles and print the cache and compile counts")
	f.metrics = fs.String("metrics", "", "write run metrics (compiles, cache hits, fallbacks, recompiles, segment times) as JSON to this file")
	f.trace = fs.String("trace", "", "write a Chrome/Perfetto trace (lower, compile, execute, host fallback) to this file")
	f.fallback = fs.String("fallback", "cpu", "ops with data-dependent output shapes: cpu (run them on the host, counted) or error")
	return f
}

// parseBuckets reads --buckets.
func parseBuckets(s string) (*runtime.BucketPolicy, error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return nil, nil // the device's default (runtime.XLADefaultBuckets on PJRT devices)
	case "none", "off", "exact":
		return &runtime.BucketPolicy{Exact: true}, nil
	case "pow2":
		return &runtime.BucketPolicy{Pow2: true}, nil
	}
	var sizes []int64
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%w: --buckets %q: want pow2 or positive sizes such as 8,16,32", errUsage, s)
		}
		sizes = append(sizes, n)
	}
	return &runtime.BucketPolicy{Sizes: sizes}, nil
}

// apply configures prog from the flags.
func (f *runtimeFlags) apply(prog *runtime.Program, stderr io.Writer) error {
	b, err := parseBuckets(*f.buckets)
	if err != nil {
		return err
	}
	fallback := *f.fallback
	if fallback != "cpu" && fallback != "error" {
		return fmt.Errorf("%w: --fallback must be cpu or error", errUsage)
	}
	o := runtime.Options{
		CacheMaxBytes: *f.cacheMaxMB << 20,
		NoCache:       *f.noCache,
		Fallback:      fallback,
		Buckets:       b,
		DebugSync:     *f.debugSync,
		Explain:       *f.explain || *f.verbose,
		Log:           stderr,
		Trace:         *f.trace != "",
	}
	if !*f.noCache {
		o.CacheDir = *f.cacheDir
	}
	if stderr == io.Writer(os.Stderr) && runtime.IsTerminal(os.Stderr) {
		o.Progress = stderr
	}
	return prog.Configure(o)
}

// finish writes the metrics and trace files and, with -v, a summary.
func (f *runtimeFlags) finish(prog *runtime.Program, stderr io.Writer) error {
	if prog == nil {
		return nil
	}
	m := prog.Metrics()
	if *f.verbose {
		fmt.Fprintf(stderr, "torchtpu: %s\n", m.Summary())
	}
	if *f.metrics != "" {
		if err := m.WriteJSON(*f.metrics); err != nil {
			return err
		}
	}
	if *f.trace != "" {
		if err := prog.WriteTrace(*f.trace); err != nil {
			return err
		}
	}
	return nil
}

// done is finish for a defer: errors go to stderr.
func (f *runtimeFlags) done(prog *runtime.Program, stderr io.Writer) {
	if err := f.finish(prog, stderr); err != nil {
		fmt.Fprintf(stderr, "torchtpu: %v\n", err)
	}
}
