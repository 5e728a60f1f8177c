package runtime

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/stablehlo"
)

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// slowBackend's compile lasts until a progress line has been shown.
type slowBackend struct {
	backend.Backend
	shown func() bool
}

func (s slowBackend) Compile(ctx context.Context, m *stablehlo.Module, o backend.Options) (backend.Executable, error) {
	for !s.shown() {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return s.Backend.Compile(ctx, m, o)
}

const addModule = `func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}`

func TestCompileProgress(t *testing.T) {
	saved := progressDelay
	progressDelay = 0
	defer func() { progressDelay = saved }()
	cpu, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := stablehlo.ParseModule("add.mlir", []byte(addModule))
	if err != nil {
		t.Fatal(err)
	}
	var w syncBuf
	st := &rtState{opts: Options{Progress: &w, NoCache: true}, metrics: newMetrics(), trace: newTracer(false)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := slowBackend{cpu, func() bool { return strings.Contains(w.String(), "compiling segment 7") }}
	if _, _, err := compileCached(ctx, st, b, m, "segment 7"); err != nil {
		t.Fatal(err)
	}
	out := w.String()
	if !strings.Contains(out, "compiling segment 7 (0 s)") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress output %q", out)
	}
	// Without a Progress writer (a pipe), nothing is written anywhere.
	quiet := &rtState{opts: Options{NoCache: true}, metrics: newMetrics(), trace: newTracer(false)}
	if _, _, err := compileCached(ctx, quiet, cpu, m, "segment 1"); err != nil {
		t.Fatal(err)
	}
	r, wp, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer wp.Close()
	if IsTerminal(wp) {
		t.Error("a pipe is taken for a terminal")
	}
}
