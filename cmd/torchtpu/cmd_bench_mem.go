package main

import (
	"bufio"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
)

// benchMemory fills the peak RSS and the ratios the memory bar compares:
// peak RSS over what the program itself needs (weights + activations),
// with and without the process's RSS before loading.
func benchMemory(r *benchResult) {
	r.PeakRSSMB = procStatusMB("VmHWM")
	need := r.WeightsMB + r.ActivationsMB
	if need <= 0 || r.PeakRSSMB <= 0 {
		return
	}
	r.MemRatio = r.PeakRSSMB / need
	r.MemRatioNet = max(0, r.PeakRSSMB-r.BaselineRSSMB) / need
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
