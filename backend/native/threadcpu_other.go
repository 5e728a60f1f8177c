//go:build !linux

package native

import "time"

// threadCPUTime is 0 where the thread's CPU clock is not read.
func threadCPUTime() time.Duration { return 0 }
