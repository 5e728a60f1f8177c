package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"sort"
	"time"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
)

// benchResult is what `torchtpu bench --json` prints.
type benchResult struct {
	Model           string  `json:"model"`
	Device          string  `json:"device"`
	Threads         int     `json:"threads"`
	Runs            int     `json:"runs"`
	Warmup          int     `json:"warmup"`
	LoadMS          float64 `json:"load_ms"`
	FirstRunMS      float64 `json:"first_run_ms"`
	CompileMS       float64 `json:"compile_ms"`
	CompileEstimate bool    `json:"compile_estimated"`
	Compiles        int     `json:"compiles"`
	CacheHits       int     `json:"cache_hits"`
	MedianMS        float64 `json:"median_ms"`
	P90MS           float64 `json:"p90_ms"`
	MinMS           float64 `json:"min_ms"`
	MeanMS          float64 `json:"mean_ms"`
	CPUMS           float64 `json:"cpu_ms"`
	ThroughputPerS  float64 `json:"throughput_per_s"`
	PeakRSSMB       float64 `json:"peak_rss_mb"`
	BaselineRSSMB   float64 `json:"baseline_rss_mb"`
	ActivationsMB   float64 `json:"activations_mb"`
	MemRatio        float64 `json:"mem_ratio"`
	MemRatioNet     float64 `json:"mem_ratio_net"`
	GCPercent       int     `json:"gc_percent"`
	HeapLiveMB      float64 `json:"heap_live_mb"`
	GCCPUMS         float64 `json:"gc_cpu_ms"`
	AllocMBPerRun   float64 `json:"alloc_mb_per_run"`
	WeightsMB       float64 `json:"weights_mb"`
	InputsMB        float64 `json:"inputs_mb"`
	GemmKernel      string  `json:"gemm_kernel"`
	// Bytes copied host → device and device → host: by the first run
	// (weights included) and per timed run (inputs and outputs once the
	// weights are resident; 0 on cpu, whose buffers are host memory).
	FirstH2DBytes  int64   `json:"first_run_h2d_bytes"`
	FirstD2HBytes  int64   `json:"first_run_d2h_bytes"`
	H2DBytesPerRun float64 `json:"h2d_bytes_per_run"`
	D2HBytesPerRun float64 `json:"d2h_bytes_per_run"`
	ResidentMB     float64 `json:"resident_mb"`
	// Profile is --profile's table (native backend only).
	Profile *benchProfile `json:"profile,omitempty"`
}

func init() {
	c := &command{
		name:    "bench",
		usage:   "MODEL.pt2 [--inputs IO.safetensors] [--device D] [--threads N] [--runs N] [--warmup N] [--json]",
		summary: "measure a program's latency, compile time and peak memory",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Loads a torch.export archive, runs it once (that run lowers and compiles the
program for the input shapes), then --warmup more times, then --runs timed
times, and prints:

  first run    lowering + compiling + one execution
  compile      the backend compile time the runtime measured in the first
               run; when every module came from a cache (compiles: 0; see
               --no-cache), the first run minus the median run, an
               estimate (compile_estimated in --json)
  median, p90  latency of the timed runs (p90: nearest rank)
  cpu          process CPU time per run divided by the threads: on a loaded
               machine, what the run takes while its threads run
  throughput   runs per second at the median latency
  peak RSS     the process's peak resident memory (VmHWM), weights included
  alloc/run    bytes the Go heap allocated per timed run
  mem ratio    peak RSS / (weights + activations), where activations is the
               largest sum of values (inputs, intermediates, outputs) live
               at once when each is freed after its last use: what the
               program needs at least, besides its weights. The second
               ratio takes off the RSS before loading (the binary and the
               Go runtime), which dominates for small models
  Go heap      live after the runs (heap_live_mb): the weights, plus what
               the program keeps between runs (plans, caches, buffers)

Once the program is loaded, the Go collector's growth target is lowered
from 100% of the live heap (mostly weights) to 10%, but at least 4 MB of
garbage; after the warm-up runs, to what 16 runs (or 250 ms of their CPU)
allocate if that is less, but at least 1 MB, and never less than what
two runs allocate (a run's results alone may exceed the tenth; then over
100% if need be) (gc_percent in --json). GOGC
or GOMEMLIMIT in the environment leave it alone. run and verify lower it
as after loading. After the first run, each run computes its outputs into
buffers kept between runs, as the C ABI's callers (the Python package)
hand theirs over: a training forward's saved activations (10 MB per run
for compile_bench's GPT-2) are not new memory each time.

Inputs come from a safetensors file with input.0, input.1, ... (a model's
.io.safetensors file works: its outputs are ignored); without --inputs the
sample inputs saved in the archive are used. --threads sets how many cores
the native backend uses (GOMAXPROCS). --json prints one JSON object with
median_ms, p90_ms, compile_ms, peak_rss_mb and the rest.

Example:
  torchtpu bench resnet18.pt2 --inputs resnet18.io.safetensors --threads 2
  torchtpu bench examples/mlp.pt2 --runs 50 --json
  torchtpu bench model.pt2 --profile --trace trace.json
  torchtpu bench model.pt2 --cpuprofile cpu.out && go tool pprof -top cpu.out

--profile times each step of the native backend (an op, a fused group of
elementwise ops, a convolution with its fused epilogue) in the timed runs
and prints the time per kind of step and the slowest steps, per run, with
their share of all steps' time, and how much of the run's wall time the
steps cover; with --trace the steps are spans of the trace too.`)
		inputs := fs.String("inputs", "", "safetensors file with input.0, input.1, ... (default: the archive's sample inputs)")
		device := fs.String("device", "cpu", "device to run on (see 'torchtpu devices')")
		threads := fs.Int("threads", goruntime.GOMAXPROCS(0), "threads (GOMAXPROCS) for the native backend")
		runs := fs.Int("runs", 10, "timed runs")
		warmup := fs.Int("warmup", 2, "untimed runs after the first")
		asJSON := fs.Bool("json", false, "print one JSON object")
		rf := addRuntimeFlags(fs) // cache, buckets, metrics, trace (flags_runtime.go)
		cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed runs to this file (go tool pprof)")
		profile := fs.Bool("profile", false, "time the native backend's steps in the timed runs: per op kind and per fused group or op, with their share (and as spans in --trace)")
		profileTop := fs.Int("profile-top", 15, "steps listed by --profile")
		profileCPU := fs.Bool("profile-cpu", false, "with --profile and --threads 1: time the steps in the CPU time of the thread running them, not wall time (a loaded machine stretches wall time only)")
		memProfile := fs.String("memprofile", "", "write a heap profile (after the timed runs) to this file (go tool pprof -sample_index=alloc_space)")
		pos, err := parseInterleaved(fs, args)
		if err != nil {
			return 2, err
		}
		if len(pos) != 1 {
			return 2, fmt.Errorf("%w: want one MODEL.pt2, have %d arguments", errUsage, len(pos))
		}
		if *runs < 1 || *warmup < 0 || *threads < 1 {
			return 2, fmt.Errorf("%w: --runs and --threads must be at least 1, --warmup at least 0", errUsage)
		}
		goruntime.GOMAXPROCS(*threads)
		res := benchResult{Model: pos[0], Device: *device, Threads: *threads, Runs: *runs, Warmup: *warmup,
			CompileEstimate: true, GemmKernel: gemm.Kernel()}

		res.BaselineRSSMB = procStatusMB("VmRSS")
		t0 := time.Now()
		p, prog, err := loadProgram(pos[0], *device)
		if err != nil {
			return 1, err
		}
		if err := rf.apply(prog, stderr); err != nil {
			return 2, err
		}
		defer rf.done(prog, stderr)
		ins, err := programInputs(p, *inputs)
		if err != nil {
			return 1, err
		}
		res.LoadMS = ms(time.Since(t0))
		res.WeightsMB = literalsMB(prog.Weights)
		res.InputsMB = literalsMB(ins)
		act, _ := prog.ActivationBytes(ins)
		res.ActivationsMB = float64(act) / (1 << 20)
		res.GCPercent = settleHeap(0, 0)

		runCtx := ctx
		var outs []*literal.Literal
		run := func() (time.Duration, error) {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t := time.Now()
			o, _, err := prog.Run(runCtx, ins)
			if err != nil {
				return 0, fmt.Errorf("bench %s: %w", pos[0], err)
			}
			d := time.Since(t)
			outs = o
			return d, nil
		}
		first, err := run()
		if err != nil {
			return 1, err
		}
		res.FirstRunMS = ms(first)
		// Later runs compute their outputs into memory kept between runs,
		// as the C ABI's callers (the Python package) hand theirs over,
		// rather than into new buffers each time.
		ctx = runtime.WithOutputBuffers(ctx, outputBuffers(outs))
		runCtx = ctx
		// Again, now that the first run has built the plan, its caches
		// and the buffers it keeps between runs.
		res.GCPercent = settleHeap(0, 0)
		if m := prog.Metrics().Snapshot(); m != nil {
			res.FirstH2DBytes, res.FirstD2HBytes = m.H2DBytes, m.D2HBytes
			res.Compiles, res.CacheHits = m.Compiles, m.CacheHits
			if m.Compiles > 0 {
				res.CompileMS, res.CompileEstimate = m.CompileMS, false
			}
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		warm0 := benchCPUTime()
		for i := 0; i < *warmup; i++ {
			if _, err := run(); err != nil {
				return 1, err
			}
		}
		if *warmup > 0 {
			// And once more, knowing what a run allocates and takes.
			cpu := (benchCPUTime() - warm0) / time.Duration(*warmup)
			goruntime.ReadMemStats(&after)
			res.GCPercent = settleHeap((after.TotalAlloc-before.TotalAlloc)/uint64(*warmup), cpu)
			goruntime.ReadMemStats(&before)
		}
		cpu0, gc0 := benchCPUTime(), gcCPUSeconds()
		if *cpuProfile != "" {
			f, err := os.Create(*cpuProfile)
			if err != nil {
				return 1, fmt.Errorf("bench: %w", err)
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return 1, fmt.Errorf("bench: %w", err)
			}
		}
		moved0 := prog.Metrics().Snapshot()
		var prof *native.Profile
		if *profile {
			prof = &native.Profile{Spans: *rf.trace != "", MaxSpans: 1 << 20, ThreadCPU: *profileCPU}
			runCtx = native.WithProfile(ctx, prof)
			if *profileCPU {
				goruntime.LockOSThread() // the runs stay on one thread, whose clock the steps read
				defer goruntime.UnlockOSThread()
			}
		}
		lat := make([]float64, *runs)
		for i := range lat {
			d, err := run()
			if err != nil {
				return 1, err
			}
			lat[i] = ms(d)
		}
		if *cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		if cpu := benchCPUTime(); cpu > 0 {
			res.CPUMS = ms(cpu-cpu0) / float64(*runs) / float64(*threads)
		}
		if gc := gcCPUSeconds(); gc > 0 {
			res.GCCPUMS = (gc - gc0) * 1000 / float64(*runs) / float64(*threads)
		}
		goruntime.ReadMemStats(&after)
		res.AllocMBPerRun = float64(after.TotalAlloc-before.TotalAlloc) / float64(*runs) / (1 << 20)
		moved := prog.Metrics().Snapshot()
		res.H2DBytesPerRun = float64(moved.H2DBytes-moved0.H2DBytes) / float64(*runs)
		res.D2HBytesPerRun = float64(moved.D2HBytes-moved0.D2HBytes) / float64(*runs)
		res.ResidentMB = float64(prog.ResidentBytes()) / (1 << 20)
		benchSummarize(&res, lat)
		benchMemory(&res)
		if prof != nil {
			res.Profile = summarizeProfile(prof, res.MedianMS, res.MeanMS, *threads, *profileTop)
			traceProfile(prog, prof)
		}
		if *memProfile != "" {
			if err := writeHeapProfile(*memProfile); err != nil {
				return 1, err
			}
		}

		if *asJSON {
			enc := json.NewEncoder(stdout)
			if err := enc.Encode(res); err != nil {
				return 1, fmt.Errorf("bench: %w", err)
			}
			return 0, nil
		}
		printBench(stdout, &res)
		if res.Profile != nil {
			printProfile(stdout, res.Profile)
		}
		return 0, nil
	}
	register(c)
}

// benchSummarize fills the latency figures from the timed runs (milliseconds).
func benchSummarize(res *benchResult, lat []float64) {
	s := append([]float64(nil), lat...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		res.MedianMS = s[n/2]
	} else {
		res.MedianMS = (s[n/2-1] + s[n/2]) / 2
	}
	res.P90MS = s[max(0, int(math.Ceil(0.9*float64(n)))-1)]
	res.MinMS = s[0]
	var sum float64
	for _, v := range s {
		sum += v
	}
	res.MeanMS = sum / float64(n)
	if res.MedianMS > 0 {
		res.ThroughputPerS = 1000 / res.MedianMS
	}
	if res.CompileEstimate {
		res.CompileMS = math.Max(0, res.FirstRunMS-res.MedianMS)
	}
}

func printBench(w io.Writer, r *benchResult) {
	fmt.Fprintf(w, "model       %s on %s, %d threads (gemm %s)\n", r.Model, r.Device, r.Threads, r.GemmKernel)
	fmt.Fprintf(w, "load        %.1f ms (weights %.1f MB, inputs %.2f MB)\n", r.LoadMS, r.WeightsMB, r.InputsMB)
	fmt.Fprintf(w, "first run   %.2f ms (lowering + compiling + one execution)\n", r.FirstRunMS)
	if r.CompileEstimate {
		fmt.Fprintf(w, "compile     %.2f ms (estimated: first run - median; %d compiles, %d cache hits)\n", r.CompileMS, r.Compiles, r.CacheHits)
	} else {
		fmt.Fprintf(w, "compile     %.2f ms (%d compiles, %d cache hits)\n", r.CompileMS, r.Compiles, r.CacheHits)
	}
	fmt.Fprintf(w, "latency     median %.3f ms, p90 %.3f ms, min %.3f ms, mean %.3f ms over %d runs (%d warm-up)\n",
		r.MedianMS, r.P90MS, r.MinMS, r.MeanMS, r.Runs, r.Warmup)
	fmt.Fprintf(w, "cpu         %.3f ms per run per thread (%.3f ms of it garbage collection)\n", r.CPUMS, r.GCCPUMS)
	fmt.Fprintf(w, "throughput  %.2f runs/s\n", r.ThroughputPerS)
	fmt.Fprintf(w, "memory      peak RSS %.1f MB, %.2f MB allocated per run\n", r.PeakRSSMB, r.AllocMBPerRun)
	fmt.Fprintf(w, "            %.2f x (weights %.1f MB + activations %.1f MB); %.2f x over the %.1f MB the process held before loading\n",
		r.MemRatio, r.WeightsMB, r.ActivationsMB, r.MemRatioNet, r.BaselineRSSMB)
	fmt.Fprintf(w, "            Go heap %.1f MB live after the runs: weights and what the program keeps between runs\n", r.HeapLiveMB)
	if r.FirstH2DBytes+r.FirstD2HBytes > 0 || r.ResidentMB > 0 {
		fmt.Fprintf(w, "transfers   first run %d B to the device, %d B back; then %.0f B and %.0f B per run (%.1f MB of weights resident)\n",
			r.FirstH2DBytes, r.FirstD2HBytes, r.H2DBytesPerRun, r.D2HBytesPerRun, r.ResidentMB)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// literalsMB sums the data of literals held in a slice or map, counting
// memory that several hold (tied weights) once.
func literalsMB[C ~[]*literal.Literal | ~map[string]*literal.Literal](c C) float64 {
	seen := map[*byte]bool{}
	var n int
	add := func(l *literal.Literal) {
		if l == nil || len(l.Data) == 0 || seen[&l.Data[0]] {
			return
		}
		seen[&l.Data[0]] = true
		n += len(l.Data)
	}
	switch v := any(c).(type) {
	case []*literal.Literal:
		for _, l := range v {
			add(l)
		}
	case map[string]*literal.Literal:
		for _, l := range v {
			add(l)
		}
	}
	return float64(n) / (1 << 20)
}

// outputBuffers returns a buffer of each host output's size, for
// runtime.WithOutputBuffers (nil where an output is not a dense host
// literal).
func outputBuffers(outs []*literal.Literal) [][]byte {
	dst := make([][]byte, len(outs))
	for i, o := range outs {
		if o != nil && len(o.Data) > 0 {
			dst[i] = make([]byte, len(o.Data))
		}
	}
	return dst
}
