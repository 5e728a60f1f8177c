// Command pingpong measures how long a cache line takes to go from one
// core to the other and back: two goroutines, each locked to its own
// thread, take turns incrementing a counter the other waits for. On one
// machine the round trip is a property of where its cores sit (the same
// core complex, another one, another socket); on a virtual machine it
// shows where the host has put the virtual cores at that moment, which
// this project's benchmarks found changing within seconds.
//
//	go run ./tools/bench/pingpong [-trips N] [-rounds N] [-every D -for D]
//
// Each sample is the median of -rounds rounds of -trips round trips, in
// nanoseconds per round trip, with the rounds' fastest and slowest. With
// -every, a sample is taken every D for -for, each on its own line with
// the time of day, to set beside benchmarks run meanwhile (a sample keeps
// both cores busy for a few hundredths of a second).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync/atomic"
	"time"
)

// line is a counter alone in its cache line.
type line struct {
	v atomic.Int64
	_ [56]byte
}

func main() {
	trips := flag.Int("trips", 100000, "round trips per round")
	rounds := flag.Int("rounds", 5, "rounds per sample (the median is reported)")
	every := flag.Duration("every", 0, "take a sample every this long (0: one sample)")
	total := flag.Duration("for", time.Minute, "with -every: for how long")
	flag.Parse()
	if *trips < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "pingpong: -trips and -rounds must be at least 1")
		os.Exit(2)
	}
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	var ping, pong line
	go func() { // the echo: answers each value of ping on pong
		runtime.LockOSThread()
		for want := int64(1); ; want++ {
			for ping.v.Load() != want {
			}
			pong.v.Store(want)
		}
	}()
	runtime.LockOSThread()
	next := int64(0)
	sample := func() (med, lo, hi float64) {
		ns := make([]float64, *rounds)
		for r := range ns {
			t := time.Now()
			for i := 0; i < *trips; i++ {
				next++
				ping.v.Store(next)
				for pong.v.Load() != next {
				}
			}
			ns[r] = float64(time.Since(t).Nanoseconds()) / float64(*trips)
		}
		sort.Float64s(ns)
		return ns[len(ns)/2], ns[0], ns[len(ns)-1]
	}
	if *every <= 0 {
		med, lo, hi := sample()
		fmt.Printf("round trip %.0f ns (rounds %.0f-%.0f)\n", med, lo, hi)
		return
	}
	for end := time.Now().Add(*total); time.Now().Before(end); time.Sleep(*every) {
		med, lo, hi := sample()
		fmt.Printf("%s round trip %.0f ns (rounds %.0f-%.0f)\n", time.Now().Format("15:04:05"), med, lo, hi)
	}
}
