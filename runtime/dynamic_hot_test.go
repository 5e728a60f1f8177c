package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// A call with the last call's dtypes and shapes skips the checks (the hot
// call); any other call is checked and specialised as ever, and the
// values stay right across the switches.
func TestHotCallChecksWhatChanged(t *testing.T) {
	prog, err := New(twoInputs(), nil, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(x, y *literal.Literal) ([]*literal.Literal, error) {
		outs, _, err := prog.Run(ctx, []*literal.Literal{x, y})
		return outs, err
	}
	for _, n := range []int64{3, 3, 3, 5, 5, 3} {
		outs, err := run(vec(n, 1), vec(n, 0.5))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i := 0; i < int(n); i++ {
			if got, want := outs[0].Float64(i), 1.5*float64(i+1); got != want {
				t.Fatalf("n=%d: element %d is %v, want %v", n, i, got, want)
			}
		}
	}
	if _, err := run(vec(3, 1), vec(5, 1)); err == nil || !strings.Contains(err.Error(), "symbolic dim s0") {
		t.Errorf("mismatched s0 after hot calls: %v", err)
	}
	f64, _ := literal.New(dtype.F64, []int64{3})
	if _, err := run(f64, vec(3, 1)); err == nil || !strings.Contains(err.Error(), "has dtype") {
		t.Errorf("float64 input after hot calls: %v", err)
	}
	if _, err := run(vec(3, 1), nil); err == nil {
		t.Errorf("a nil input after hot calls ran")
	}
	// (compiles are not counted: the executables are shared through the
	// process's memory cache with other tests' programs)
	m := prog.Metrics().Snapshot()
	if len(m.Recompiles) != 1 || m.HitsBy["plan"] != 4 {
		t.Errorf("recompiles %+v (want 3 → 5 only), plan hits %d (want 4)", m.Recompiles, m.HitsBy["plan"])
	}
}
