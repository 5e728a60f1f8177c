package eager

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// failing is the native backend, except that modules with a multiply fail
// to compile and modules with a subtract fail when they run.
type failing struct{ backend.Backend }

type failingExe struct{ backend.Executable }

func (failing) Name() string { return "test-failing" }

func (f failing) Compile(ctx context.Context, m *stablehlo.Module, o backend.Options) (backend.Executable, error) {
	var sb strings.Builder
	if err := stablehlo.Print(&sb, m); err != nil {
		return nil, err
	}
	text := sb.String()
	if strings.Contains(text, "stablehlo.multiply") {
		return nil, errors.New("this backend cannot compile multiply")
	}
	exe, err := f.Backend.Compile(ctx, m, o)
	if err != nil || !strings.Contains(text, "stablehlo.subtract") {
		return exe, err
	}
	return failingExe{exe}, nil
}

func (failingExe) Run(context.Context, []*literal.Literal) ([]*literal.Literal, error) {
	return nil, errors.New("subtract failed on the device")
}

func init() {
	backend.Register("test-failing", func() (backend.Backend, error) {
		b, err := backend.Open("cpu")
		if err != nil {
			return nil, err
		}
		return failing{b}, nil
	})
}

// TestEagerFailures: a failed compile declines the op (the caller falls
// back or raises); a run that fails asynchronously is reported at the next
// synchronisation naming the op; a fused block that fails to compile is
// reported at its flush. The device goes on working after each.
func TestEagerFailures(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"debug", "async", "fused"} {
		t.Run(mode, func(t *testing.T) {
			d, err := newDevice(Options{Backend: "test-failing", Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			x := upload(t, d, []float32{1, 2, 3})
			xs := tensorWords(x, 0, []int64{3}, []int64{1})
			two := append(append([]int64{}, xs...), xs...)
			mul, sub, add := opID(t, d, "aten::mul.Tensor"), opID(t, d, "aten::sub.Tensor"), opID(t, d, "aten::add.Tensor")
			out := make([]int64, 32)
			st, msg, _, err := d.Call(ctx, mul, two, FlagCompile, out)
			switch {
			case mode == "fused" && (err != nil || st != StatusOK):
				t.Fatalf("fused mul: status %d %q %v (recorded, compiled at the flush)", st, msg, err)
			case mode != "fused" && (err != nil || st != StatusDecline || !strings.Contains(msg, "cannot compile multiply")):
				t.Fatalf("mul: status %d %q %v, want a decline naming the compile failure", st, msg, err)
			}
			if mode == "fused" {
				err := d.Synchronize(ctx)
				if err == nil || !strings.Contains(err.Error(), "fused block of 1 ops") || !strings.Contains(err.Error(), "cannot compile multiply") {
					t.Fatalf("fused flush: %v", err)
				}
			}
			st, msg, _, err = d.Call(ctx, sub, append(two, tagInt, 1), FlagCompile, out)
			if mode == "debug" {
				if err == nil || !strings.Contains(err.Error(), "aten::sub.Tensor") || !strings.Contains(err.Error(), "subtract failed") {
					t.Fatalf("debug sub: %v, want the op's failure at its call", err)
				}
			} else {
				if err != nil || st != StatusOK {
					t.Fatalf("sub: status %d %q %v", st, msg, err)
				}
				err := d.Synchronize(ctx)
				if err == nil || !strings.Contains(err.Error(), "asynchronously") || !strings.Contains(err.Error(), "subtract failed") {
					t.Fatalf("sync after sub: %v", err)
				}
				if mode == "async" && !strings.Contains(err.Error(), "aten::sub.Tensor") {
					t.Fatalf("sync after sub does not name the op: %v", err)
				}
			}
			// the device works on
			ret := call(t, d, add, append(two, tagInt, 1))
			if got := download(t, d, Handle(ret[1]), 3); got[2] != 6 {
				t.Fatalf("x+x after the failures: %v", got)
			}
		})
	}
}
