// Command sgemm times package gemm on square float32 products, for
// scripts/bench-compare.sh. It prints one JSON object per size:
//
//	{"kind": "gemm", "n": 1024, "gflops": ..., "cpu_gflops": ..., "kernel": ...}
//
// gflops is over the median wall time; cpu_gflops over the process CPU time
// divided by the thread count (what the threads reach while they run, the
// figure to trust on a loaded machine). With -peak it first prints one
// core's float32 FMA peak, measured with register-only FMAs of the widest
// vectors the CPU has (AVX-512, or AVX2):
//
//	{"kind": "peak", "available": true, "gflops": ...}
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

func main() {
	sizes := flag.String("n", "1024,2048", "square sizes, comma separated")
	threads := flag.Int("threads", runtime.GOMAXPROCS(0), "threads")
	runs := flag.Int("runs", 5, "timed runs per size")
	peak := flag.Bool("peak", false, "first print one core's measured FMA peak: {\"kind\": \"peak\", \"gflops\": ...}")
	flag.Parse()
	runtime.GOMAXPROCS(*threads)
	if *peak {
		g, ok := gemm.PeakFMA(300 * time.Millisecond)
		out := map[string]any{"kind": "peak", "available": ok}
		if ok {
			out["gflops"] = g
		}
		if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
			fmt.Fprintln(os.Stderr, "sgemm:", err)
			os.Exit(1)
		}
	}
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "sgemm: bad size %q\n", f)
			os.Exit(2)
		}
		if err := json.NewEncoder(os.Stdout).Encode(measure(n, *threads, max(1, *runs))); err != nil {
			fmt.Fprintln(os.Stderr, "sgemm:", err)
			os.Exit(1)
		}
	}
}

func measure(n, threads, runs int) map[string]any {
	r := rand.New(rand.NewPCG(1, 2))
	mat := func() []float32 {
		s := make([]float32, n*n)
		for i := range s {
			s[i] = float32(r.NormFloat64())
		}
		return s
	}
	a, b, c := mat(), mat(), make([]float32, n*n)
	mm := func() { gemm.Sgemm(n, n, n, gemm.RowMajor(a, n), gemm.RowMajor(b, n), c, n, false, threads) }
	mm()
	mm()
	lat := make([]float64, runs)
	cpu0 := cpuTime()
	for i := range lat {
		t := time.Now()
		mm()
		lat[i] = time.Since(t).Seconds()
	}
	cpu := (cpuTime() - cpu0).Seconds()
	sort.Float64s(lat)
	flop := 2 * float64(n) * float64(n) * float64(n)
	out := map[string]any{"kind": "gemm", "n": n, "threads": threads, "kernel": gemm.Kernel(),
		"gflops": flop / lat[len(lat)/2] / 1e9}
	if cpu > 0 {
		out["cpu_gflops"] = flop * float64(runs) / (cpu / float64(threads)) / 1e9
	}
	return out
}

// cpuTime
