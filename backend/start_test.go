package backend

import (
	"context"
	"errors"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

type syncExe struct{ err error }

func (e syncExe) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	return args, e.err
}

type asyncExe struct {
	syncExe
	started *bool
}

func (e asyncExe) RunAsync(ctx context.Context, args []*literal.Literal) (Pending, error) {
	*e.started = true
	return Done(args), nil
}

func TestStart(t *testing.T) {
	ctx := context.Background()
	a, _ := literal.New(dtype.F32, []int64{2})
	p, err := Start(ctx, syncExe{}, []*literal.Literal{a})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	default:
		t.Error("a synchronous executable's Pending is not done")
	}
	outs, err := p.Wait(ctx)
	if err != nil || len(outs) != 1 || outs[0] != a {
		t.Errorf("Wait = %v, %v", outs, err)
	}
	boom := errors.New("boom")
	if _, err := Start(ctx, syncExe{err: boom}, nil); !errors.Is(err, boom) {
		t.Errorf("a failing run: %v", err)
	}
	started := false
	p, err = Start(ctx, asyncExe{started: &started}, []*literal.Literal{a})
	if err != nil || !started {
		t.Fatalf("Start did not use RunAsync: %v %v", started, err)
	}
	if outs, err := p.Wait(ctx); err != nil || outs[0] != a {
		t.Errorf("Wait = %v, %v", outs, err)
	}
}
