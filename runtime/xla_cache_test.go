package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// On the real XLA CPU plugin the disk cache holds executables serialized
// through PJRT_Executable_Serialize: a second process loads them
// (PJRT_Executable_DeserializeAndLoad) and runs resnet18 without
// compiling anything, and its outputs still match PyTorch's.
func TestXLACPUCompileCacheAcrossProcesses(t *testing.T) {
	if os.Getenv(cacheChildEnv) != "" {
		t.Skip("child process")
	}
	requireXLACPU(t)
	root := fixtureRoot(t)
	dir := t.TempDir()
	first := cacheChild(t, dir, root)
	second := cacheChild(t, dir, root)
	if first.Compiles < 1 {
		t.Errorf("first process compiled %d modules, want at least 1", first.Compiles)
	}
	if second.Compiles != 0 || second.HitsBy["disk"] < 1 {
		t.Errorf("second process: %d compiles, %d disk hits; want 0 compiles and the executables loaded from disk", second.Compiles, second.HitsBy["disk"])
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	serialized := 0
	for _, e := range entries {
		if b, err := os.ReadFile(e); err == nil && bytes.Contains(b[:min(len(b), 256)], []byte("torchtpu-serialized")) {
			serialized++
		}
	}
	if serialized == 0 {
		t.Errorf("no serialized executable among the %d disk entries", len(entries))
	}
	t.Logf("first process: %d compiles (%.0f ms); second: %d compiles, %d disk hits; %d serialized entries",
		first.Compiles, first.CompileMS, second.Compiles, second.HitsBy["disk"], serialized)
}

const cacheChildEnv = "TORCHTPU_CACHE_CHILD_DIR"

func requireXLACPU(t *testing.T) {
	t.Helper()
	if !pjrt.CanLoad {
		t.Skip("no cgo")
	}
	if pjrt.ForKind(pjrt.Search(nil), "xla-cpu") == nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no xla-cpu PJRT plugin: .ci/run installs it with scripts/install-pjrt.sh xla-cpu")
		}
		t.Skip("no xla-cpu PJRT plugin (scripts/install-pjrt.sh xla-cpu)")
	}
}

// cacheChild runs TestXLACPUCacheChild in a new process and returns its
// metrics.
func cacheChild(t *testing.T, dir, root string) *runtime.Metrics {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestXLACPUCacheChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), cacheChildEnv+"="+dir, "TORCHTPU_FIXTURE_ROOT="+root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if js, ok := strings.CutPrefix(line, "METRICS "); ok {
			m := &runtime.Metrics{}
			if err := json.Unmarshal([]byte(js), m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("child process printed no metrics:\n%s", out)
	return nil
}

// TestXLACPUCacheChild is the process TestXLACPUCompileCacheAcrossProcesses starts.
func TestXLACPUCacheChild(t *testing.T) {
	dir := os.Getenv(cacheChildEnv)
	if dir == "" {
		t.Skip("the child process of TestXLACPUCompileCacheAcrossProcesses")
	}
	base := filepath.Join(os.Getenv("TORCHTPU_FIXTURE_ROOT"), "models", "resnet18")
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.Load(base + ".io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := runtime.FromPT2(p, "xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Configure(runtime.Options{CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	outs, _, err := prog.Run(context.Background(), io.Inputs())
	if err != nil {
		t.Fatal(err)
	}
	want := io.Outputs()
	for i := range want {
		if c := runtime.Compare(outs[i], want[i], runtime.DefaultTolerance(want[i].DType)); !c.OK {
			t.Fatalf("output %d: %s", i, c.Detail)
		}
	}
	b, err := json.Marshal(prog.Metrics().Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("METRICS %s\n", b)
}
