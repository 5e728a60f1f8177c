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
	"time"
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
// the live heap, but at least minGCHeadroom. Once what a run allocates and
// the CPU it takes are known (bench's warm-up runs), garbage is kept to
// what runsPerGC runs allocate, or as many runs as take gcEvery of CPU if
// that is more (a collection costs ~1-3 ms of CPU: one per 250 ms keeps it
// under about 1%), but at least minRunHeadroom and at most the above;
// and never less than what two runs allocate (then over 100% of the live
// heap if need be): a program whose results alone exceed the tenth (a
// training graph's saved activations: GPT-2's forward graph allocates 19
// MB per run over 20 MB live) would otherwise be collected several times
// per run (five, a fifth of its CPU).
const (
	gcHeadroom     = 0.10
	minGCHeadroom  = 4 << 20
	runsPerGC      = 16
	gcEvery        = 250 * time.Millisecond
	minRunHeadroom = 1 << 20
)

// settleHeap is called once a program's weights are loaded (and again in
// bench once the first run has built the plan and its buffers, and after
// the warm-up runs with what a run allocates and its CPU time; 0 when
// unknown). It collects the garbage of loading, then lowers the
// collector's growth target (GOGC) from 100% of the live heap to the
// headroom above. With the default, a heap that is mostly weights may grow
// by as much again in garbage before the collector runs: resnet18's 45 MB
// of weights let its peak RSS reach 180 MB. Weights and activations are
// byte slices the collector does not scan, so a collection costs little.
// The target stays a percentage, so a run that needs more memory gets it
// without the collector thrashing. It returns the GOGC it set, or 0 when
// GOGC or GOMEMLIMIT in the environment are left to govern.
func settleHeap(perRun uint64, runCPU time.Duration) int {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	live := float64(heapLive())
	if live == 0 {
		return 0
	}
	pct := gcPercent(live, float64(perRun), runCPU)
	debug.SetGCPercent(pct)
	return pct
}

// gcPercent is the GOGC that lets garbage reach the headroom settleHeap
// describes over a live heap of live bytes.
func gcPercent(live, perRun float64, runCPU time.Duration) int {
	most := max(live*gcHeadroom, minGCHeadroom)
	headroom := most
	if perRun > 0 {
		runs := float64(runsPerGC)
		if runCPU > 0 {
			runs = max(runs, float64(gcEvery)/float64(runCPU))
		}
		headroom = max(min(most, max(minRunHeadroom, runs*perRun)), 2*perRun)
	}
	return max(1, min(max(100, int(math.Ceil(200*perRun/live))), int(math.Round(100*headroom/live))))
}
