package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt"
	"github.com/torchtpu/torchtpu/pt2"
	trt "github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestSoakRSS runs resnet18 TORCHTPU_SOAK times (e.g. 1000) on cpu and on
// xla-cpu and logs the resident memory along the way, to show that
// buffers do not leak. It asserts that the PJRT buffers live do not grow
// from the first tenth to the end, and that RSS does not grow by more than
// the weights.
// Not run unless TORCHTPU_SOAK is set (minutes).
func TestSoakRSS(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TORCHTPU_SOAK"))
	if n <= 0 {
		t.Skip("set TORCHTPU_SOAK=1000 to run")
	}
	base := filepath.Join(fixtureRoot(t), "models", "resnet18")
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.Load(base + ".io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range strings.Split(os.Getenv("TORCHTPU_SOAK_DEVICES")+",", ",") {
		if dev == "" {
			continue
		}
		prog, err := trt.FromPT2(p, dev)
		if err != nil {
			t.Fatal(err)
		}
		var at10, prev, last float64
		var live10 int64
		for i := 1; i <= n; i++ {
			if _, _, err := prog.Run(context.Background(), io.Inputs()); err != nil {
				t.Fatal(err)
			}
			if i == max(n/10, 1) || i%max(n/5, 1) == 0 {
				debug.FreeOSMemory() // collect, and return freed heap to the OS: RSS shows what is live
				prev, last = last, rssMB()
				if i == max(n/10, 1) {
					at10 = last
				}
				t.Logf("%s run %d: RSS %.1f MB, %d PJRT buffers live", dev, i, last, pjrt.LiveBuffers())
				if i == max(n/10, 1) {
					live10 = pjrt.LiveBuffers()
				}
			}
		}
		// The exact check: device buffers made by a run are destroyed
		// (the resident weights stay; nothing else accumulates).
		if live := pjrt.LiveBuffers(); live > live10 {
			t.Errorf("%s: %d PJRT buffers live after run %d, %d after run %d", dev, live, n, live10, n/10)
		}
		// XLA's allocator holds freed memory for a while (its RSS swings by
		// tens of MB between checkpoints): a leak raises the floor, so the
		// lower of the last two readings is what must stay flat.
		if floor := min(prev, last); floor-at10 > 45 {
			t.Errorf("%s: RSS grew %.1f MB from run %d to the last checkpoints", dev, floor-at10, n/10)
		}
	}
}

func rssMB() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
