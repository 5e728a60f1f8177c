package backend

import (
	"context"
	"errors"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

type plainBackend struct{}

func (plainBackend) Name() string    { return "plain" }
func (plainBackend) Version() string { return "1" }

var _ Backend = plainBackendCompiler{}

// On a backend without device memory a buffer is the literal itself:
// nothing is copied either way, and executables run on it through Run.
func TestHostBuffers(t *testing.T) {
	ctx := context.Background()
	a, _ := literal.New(dtype.F32, []int64{2})
	a.SetFloat64(1, 3)
	buf, err := Upload(ctx, plainBackendCompiler{}, a)
	if err != nil {
		t.Fatal(err)
	}
	if !IsHost(buf) || buf.Device() != "plain" {
		t.Fatalf("Upload gave %T on %s", buf, buf.Device())
	}
	if got, err := buf.ToHost(ctx); err != nil || got != a {
		t.Errorf("ToHost = %p, %v; want the literal itself %p", got, err, a)
	}
	outs, err := RunBuffers(ctx, plainBackendCompiler{}, syncExe{}, []Buffer{buf}, nil)
	if err != nil || len(outs) != 1 {
		t.Fatalf("RunBuffers = %v, %v", outs, err)
	}
	if got, _ := outs[0].ToHost(ctx); got != a {
		t.Error("the echoing executable's result is not the argument's literal")
	}
	select {
	case <-outs[0].Ready():
	default:
		t.Error("a host buffer is not ready")
	}
	buf.Release()
	if _, err := buf.ToHost(ctx); !errors.Is(err, ErrReleased) {
		t.Errorf("reading a released buffer: %v", err)
	}
	if _, err := RunBuffers(ctx, plainBackendCompiler{}, syncExe{}, []Buffer{buf}, nil); !errors.Is(err, ErrReleased) {
		t.Errorf("running on a released buffer: %v", err)
	}
}

type plainBackendCompiler struct{ plainBackend }

func (plainBackendCompiler) Compile(context.Context, *stablehlo.Module, Options) (Executable, error) {
	return syncExe{}, nil
}
