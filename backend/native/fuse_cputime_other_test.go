//go:build !linux

package native

import "time"

// processCPU is not read here (0: benchmarks report no CPU time).
func processCPU() time.Duration { return 0 }
