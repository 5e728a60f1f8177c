package runtime

import (
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
)

func loadForActivations(t *testing.T, path string) *Program {
	t.Helper()
	p, err := pt2.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// mlp is x f32[B,4] → linear(8) → gelu → linear(3) → softmax. Freed after
// its last use, the peak is while gelu runs: its input and output, B×8
// floats each (x is dead by then).
func TestActivationBytesMLP(t *testing.T) {
	prog := loadForActivations(t, "../examples/mlp.pt2")
	peak, unknown := prog.ActivationBytes(mlpInput(t, 2, 4))
	if peak != 2*(2*8*4) || unknown != 0 {
		t.Errorf("peak %d bytes (%d unknown), want %d", peak, unknown, 2*(2*8*4))
	}
}

// mlp_dynamic_batch is x f32[s,16] → linear(32) → relu → linear(8): the
// peak, while relu runs, scales with the batch the input binds.
func TestActivationBytesSymbolicBatch(t *testing.T) {
	prog := loadForActivations(t, filepath.Join(sharedFixtures(t), "models", "mlp_dynamic_batch.pt2"))
	for _, b := range []int64{2, 5, 64} {
		peak, unknown := prog.ActivationBytes(mlpInput(t, b, 16))
		if want := 2 * b * 32 * 4; peak != want || unknown != 0 {
			t.Errorf("batch %d: peak %d bytes (%d unknown), want %d", b, peak, unknown, want)
		}
	}
}

// mlpInput is the one input of the mlp programs, f32[b,k].
func mlpInput(t *testing.T, b, k int64) []*literal.Literal {
	l, err := literal.New(dtype.F32, []int64{b, k})
	if err != nil {
		t.Fatal(err)
	}
	return []*literal.Literal{l}
}
