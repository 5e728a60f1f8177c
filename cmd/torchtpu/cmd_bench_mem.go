package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
)

// benchMemory fills the peak RSS and the ratios the memory bar compares:
// peak RSS over what the program itself needs (weights + activations),
// with and without the process's RSS before loading.
func benchMemory(r *benchResult) {
	r.PeakRSSMB = procStatusMB("VmHWM")
	r.HeapLiveMB = float64(heapLive()) / (1 << 20)
	need := r.WeightsMB + r.ActivationsMB
	if need <= 0 || r.PeakRSSMB <= 0 {
		return
	}
	r.MemRatio = r.PeakRSSMB / need
	r.MemRatioNet = max(0, r.PeakRSSMB-r.BaselineRSSMB) / need
}

// gcCPUSeconds is the CPU time the Go collector has taken from the
// program so far (an estimate the runtime keeps: dedicated mark workers,
// assists and pauses; not the marking it does on otherwise idle cores).
func gcCPUSeconds() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/gc/mark/idle:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 || s[1].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64() - s[1].Value.Float64()
}

// heapLive collects and returns the bytes the Go heap holds live: after
// the runs, the weights plus what the program keeps between runs (plans,
// caches, buffers).
func heapLive() uint64 {
	goruntime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// procStatusMB reads a memory field of /proc/self/status ("VmHWM": the
// peak resident set; "VmRSS": the current one) in MiB; 0 where that file
// does not exist.
func procStatusMB(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}

// writeHeapProfile writes the heap profile: what is live now (inuse_*) and
// everything allocated since the start (alloc_*), loading included.
func writeHeapProfile(path string) error {
	goruntime.GC() // the profile shows the heap as of the last collection
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("bench: heap profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// Once a program is loaded the collector lets garbage reach gcHeadroom of
// the live heap, but at least minGCHeadroom: below that, small programs
// would collect every run or two for no memory worth saving.
const (
	gcHeadroom    = 0.10
	minGCHeadroom = 4 << 20
)

// settleHeap is called once a program's weights are loaded (and again in
// bench once the first run has built the plan and its buffers). It
// collects the garbage of loading, then lowers the collector's growth
// target (GOGC) from 100% of the live heap to gcHeadroom of it, but at
// least minGCHeadroom. With the default, a heap that is mostly weights may
// grow by as much again in garbage before the collector runs: resnet18's
// 45 MB of weights let its peak RSS reach 180 MB. Weights and activations
// are byte slices the collector does not scan, so collecting more often
// costs little. On resnet18 b1 (0.5 MB allocated per run), 10% costs ~0.1
// ms of collector CPU per 26 ms run per thread (gc_cpu_ms in bench) and
// keeps the peak within 5 MB of the first run's; 5% costs three times
// that for 2 MB less, 2% ten times for 2 MB more. The target stays a
// percentage, so a run that needs more memory gets it without the
// collector thrashing. It returns the GOGC it set, or 0 when GOGC or
// GOMEMLIMIT in the environment are left to govern.
func settleHeap() int {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	live := float64(heapLive())
	if live == 0 {
		return 0
	}
	pct := int(math.Round(100 * max(live*gcHeadroom, minGCHeadroom) / live))
	pct = min(100, pct)
	debug.SetGCPercent(pct)
	return pct
}
