package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/cache"
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
