package native

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// select on every element width, with a tensor and a scalar predicate,
// on sizes below and above the parallel split and an unaligned operand,
// against the element-by-element definition.
func TestSelectWidths(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, dt := range []dtype.DType{dtype.Bool, dtype.BF16, dtype.F32, dtype.I64, dtype.C128} {
		for _, n := range []int64{1, 7, selectParMin + 13} {
			a, b := mvRand(rng, dt, n), mvRand(rng, dt, n)
			if dt == dtype.I64 {
				// an operand whose bytes start off the element alignment
				buf := make([]byte, len(b.Data)+1)
				copy(buf[1:], b.Data)
				b = literal.Wrap(dt, b.Shape, buf[1:])
			}
			for _, scalar := range []bool{false, true} {
				ps := []int64{n}
				if scalar {
					ps = nil
				}
				p := mvRandIdx(rng, dtype.Bool, 0, 1, ps...)
				op := mvOp("stablehlo.select", []stablehlo.Type{mvT(dt, n)}, nil)
				got := mvRun(t, mvEnv{}, op, p, a, b)[0].(*literal.Literal)
				esz := int64(dt.Size())
				for i := int64(0); i < n; i++ {
					src := b
					if p.Data[min(i, int64(len(p.Data))-1)] != 0 {
						src = a
					}
					if !bytes.Equal(got.Data[i*esz:(i+1)*esz], src.Data[i*esz:(i+1)*esz]) {
						t.Fatalf("%v n=%d scalar=%v: element %d wrong", dt, n, scalar, i)
					}
				}
			}
		}
	}
}
