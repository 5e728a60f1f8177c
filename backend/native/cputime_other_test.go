//go:build !linux

package native

import (
	"testing"
	"time"
)

func benchCPU() time.Duration { return 0 }

func reportCPU(b *testing.B, t0 time.Duration) {}
