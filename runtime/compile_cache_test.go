package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/pjrt"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/cache"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// otherBackend is the native executor under another device name: a
// stand-in for a compiling (PJRT) backend.
type otherBackend struct {
	backend.Backend
	name string
}

func (o otherBackend) Name() string { return o.name }

// serialBackend also serializes its executables (as their module text).
type serialBackend struct{ otherBackend }

type serialExe struct {
	backend.Executable
	text string
}

func (s serialExe) Serialize() ([]byte, error) { return []byte("blob:" + s.text), nil }

func (s serialBackend) Compile(ctx context.Context, m *stablehlo.Module, o backend.Options) (backend.Executable, error) {
	exe, err := s.otherBackend.Compile(ctx, m, o)
	if err != nil {
		return nil, err
	}
	text, _ := moduleText(m)
	return serialExe{exe, text}, nil
}

func (s serialBackend) Deserialize(ctx context.Context, b []byte) (backend.Executable, error) {
	m, err := stablehlo.ParseModule("blob", []byte(strings.TrimPrefix(string(b), "blob:")))
	if err != nil {
		return nil, err
	}
	return s.Compile(ctx, m, backend.Options{})
}

// TestDiskPayloads: what a disk hit counts as, per backend kind.
func TestDiskPayloads(t *testing.T) {
	cpu, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := stablehlo.ParseModule("add.mlir", []byte(addModule))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		b             backend.Backend
		kind          string
		compiles, hit int // on the second state (a new process)
	}{
		{"text on a compiling backend is a compile", otherBackend{cpu, "fake-pjrt"}, payloadText, 1, 0},
		{"serialized executables load", serialBackend{otherBackend{cpu, "fake-serial"}}, payloadSerialized, 0, 1},
	} {
		dir := t.TempDir()
		var log strings.Builder
		fresh := func() *rtState {
			return &rtState{opts: Options{CacheDir: dir, Log: &log}, metrics: newMetrics(), trace: newTracer(false)}
		}
		st := fresh()
		if _, _, err := compileCached(context.Background(), st, c.b, m, "segment 1"); err != nil {
			t.Fatal(err)
		}
		// The memory cache is per process: empty it for the "second process".
		memCache = cache.NewMemory(512)
		st2 := fresh()
		exe, key, err := compileCached(context.Background(), st2, c.b, m, "segment 1")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, key[:2], key+".bin"))
		if !strings.Contains(string(b), c.kind) {
			t.Errorf("%s: entry is not of kind %q", c.name, c.kind)
		}
		got := st2.metrics.Snapshot()
		if got.Compiles != c.compiles || got.HitsBy["disk"] != c.hit {
			t.Errorf("%s: compiles %d, disk hits %d; want %d, %d", c.name, got.Compiles, got.HitsBy["disk"], c.compiles, c.hit)
		}
		if exe == nil || log.Len() != 0 {
			t.Errorf("%s: exe %v, log %q", c.name, exe, log.String())
		}
	}
}

func TestMemKeyScopesStatefulBackends(t *testing.T) {
	cpu, _ := backend.Open("cpu")
	a, b := &otherBackend{cpu, "cuda"}, &otherBackend{cpu, "cuda"}
	if memKey(a, "k") == memKey(b, "k") || memKey(a, "k") != memKey(a, "k") {
		t.Error("PJRT-like backends must not share executables across instances")
	}
	cpu2, _ := backend.Open("cpu")
	if memKey(cpu, "k") != memKey(cpu2, "k") {
		t.Error("native backends should share executables")
	}
}

// fakePJRT builds the fake PJRT plugin as this process's xla-cpu plugin
// and returns a counter of its calls.
func fakePJRT(t *testing.T) func(string) int {
	t.Helper()
	if !pjrt.CanLoad {
		t.Skip("no cgo: PJRT plugins cannot be loaded")
	}
	path := pjrttest.BuildFake(t, "pjrt_c_api_cpu_plugin.so")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", filepath.Dir(path))
	return pjrttest.CallLog(t)
}

// Programs on one PJRT device share its one client (libtpu allows only
// one per process).
func TestPJRTProgramsShareOneClient(t *testing.T) {
	count := fakePJRT(t)
	p1, err := New(twoInputs(), nil, "xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := New(twoInputs(), nil, "xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	if p1 == p2 {
		t.Fatal("one program")
	}
	if n := count("client_create"); n != 1 {
		t.Errorf("two programs created %d PJRT clients, want 1", n)
	}
}

// A PJRT executable goes to the disk cache serialized and comes back
// without a compile.
func TestPJRTDiskCacheRoundTrip(t *testing.T) {
	count := fakePJRT(t)
	b, err := backend.Open("xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := stablehlo.ParseModule("echo.mlir", []byte(`func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	fresh := func() *rtState {
		return &rtState{opts: Options{CacheDir: dir, Log: &log}, metrics: newMetrics(), trace: newTracer(false)}
	}
	if _, _, err := compileCached(context.Background(), fresh(), b, m, "segment 1"); err != nil {
		t.Fatal(err)
	}
	memCache = cache.NewMemory(512) // a "new process"
	st := fresh()
	exe, key, err := compileCached(context.Background(), st, b, m, "segment 1")
	if err != nil {
		t.Fatal(err)
	}
	entry, _ := os.ReadFile(filepath.Join(dir, key[:2], key+".bin"))
	if !strings.Contains(string(entry), payloadSerialized) {
		t.Errorf("disk entry is not a serialized executable: %.60q", entry)
	}
	got := st.metrics.Snapshot()
	if got.Compiles != 0 || got.HitsBy["disk"] != 1 || count("compile") != 1 || count("deserialize") != 1 {
		t.Errorf("second state: %d compiles, %d disk hits; plugin compiled %d times, loaded %d; want 0, 1, 1, 1",
			got.Compiles, got.HitsBy["disk"], count("compile"), count("deserialize"))
	}
	in := vec(3, 1)
	outs, err := exe.Run(context.Background(), []*literal.Literal{in})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Float64(2) != 3 {
		t.Errorf("loaded executable returned %v", outs)
	}
	if log.Len() != 0 {
		t.Errorf("log: %q", log.String())
	}
}
