package gemm

import (
	"testing"
	"time"
)

// reportFlops reports GFLOP/s over wall time and, on a loaded machine more
// telling, GFLOP/s per thread-second of CPU time times the thread count
// ("cpuGFLOP/s": what the threads reach while they run).
func reportFlops(b *testing.B, flops float64, cpu time.Duration, threads int) {
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu > 0 {
		b.ReportMetric(flops/(cpu.Seconds()/float64(threads))/1e9, "cpuGFLOP/s")
	}
}
