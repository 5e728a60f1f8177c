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
// the live heap; once a run's allocation is known (bench's warm-up runs),
// at most what runsPerGC runs allocate; and at least minGCHeadroom.
const (
	gcHeadroom    = 0.10
	runsPerGC     = 16
	minGCHeadroom = 1 << 20
)

// settleHeap is called once a program's weights are loaded (and again in
// bench once the first run has built the plan and its buffers, and after
// the warm-up runs with what a run allocates, perRun; 0 when unknown). It
// collects the garbage of loading, then lowers the collector's growth
// target (GOGC) from 100% of the live heap to the headroom above. With the
// default, a heap that is mostly weights may grow by as much again in
// garbage before the collector runs: resnet18's 45 MB of weights let its
// peak RSS reach 180 MB. Weights and activations are byte slices the
// collector does not scan, so a collection costs little (resnet18: 1 to 4
// ms of CPU), and one every runsPerGC runs or more costs at most a few
// tenths of a percent of a run's CPU (gc_cpu_ms in bench). 10% of the live
// heap bounds the garbage of a program that allocates much per run; the
// target stays a percentage, so a run that needs more memory gets it
// without the collector thrashing. It returns the GOGC it set, or 0 when
// GOGC or GOMEMLIMIT in the environment are left to govern.
func settleHeap(perRun uint64) int {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	live := float64(heapLive())
	if live == 0 {
		return 0
	}
	pct := gcPercent(live, float64(perRun))
	debug.SetGCPercent(pct)
	return pct
}

// gcPercent is the GOGC that lets garbage reach the headroom settleHeap
// describes over a live heap of live bytes.
func gcPercent(live, perRun float64) int {
	headroom := live * gcHeadroom
	if perRun > 0 {
		headroom = min(headroom, runsPerGC*perRun)
	}
	headroom = max(headroom, minGCHeadroom)
	return max(1, min(100, int(math.Round(100*headroom/live))))
}
