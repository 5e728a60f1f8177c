package aten

import (
	"slices"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func transposed(shape []int64, perm ...int64) *stablehlo.Value {
	src := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, shape...)}
	out := make([]int64, len(perm))
	for i, p := range perm {
		out[i] = shape[p]
	}
	op := stablehlo.NewOp("stablehlo.transpose", []*stablehlo.Value{src},
		[]stablehlo.Type{stablehlo.Tensor(dtype.F32, out...)}, []stablehlo.NamedAttr{I64s("permutation", perm)})
	return op.Results[0]
}

// A product reads a transposed operand in place only when the result
// keeps its dim order and the operand stays a strided matrix.
func TestThroughTranspose(t *testing.T) {
	// linear's t(w): w [out, in] transposed to [in, out], contracting dim 0
	x := transposed([]int64{5, 3}, 1, 0)
	v, b, c := throughTranspose(x, nil, []int64{0})
	if v != x.Def.Operands[0] || len(b) != 0 || !slices.Equal(c, []int64{1}) {
		t.Errorf("t(w): got %v %v, want the operand with contracting [1]", b, c)
	}
	// k.transpose(-2, -1) of [b, h, s, d]: batch (0, 1), contracting 2
	x = transposed([]int64{2, 4, 6, 8}, 0, 1, 3, 2)
	v, b, c = throughTranspose(x, []int64{0, 1}, []int64{2})
	if v != x.Def.Operands[0] || !slices.Equal(b, []int64{0, 1}) || !slices.Equal(c, []int64{3}) {
		t.Errorf("k^T: got %v %v", b, c)
	}
	// a head split [b, s, h, d] -> [b, h, s, d]: batch (0, 1) would be dims
	// 0 and 2 of the operand, which do not merge: kept
	x = transposed([]int64{2, 6, 4, 8}, 0, 2, 1, 3)
	if v, _, _ := throughTranspose(x, []int64{0, 1}, []int64{3}); v != x {
		t.Errorf("head split: seen through")
	}
	// free dims that would come out reordered: kept
	x = transposed([]int64{3, 4, 5}, 2, 1, 0)
	if v, _, _ := throughTranspose(x, nil, []int64{1}); v != x {
		t.Errorf("reordered free dims: seen through")
	}
	// not a transpose, and bad dims: kept
	plain := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 2, 2)}
	if v, _, _ := throughTranspose(plain, nil, []int64{0}); v != plain {
		t.Errorf("a block argument: changed")
	}
	x = transposed([]int64{5, 3}, 1, 0)
	if v, _, _ := throughTranspose(x, nil, []int64{7}); v != x {
		t.Errorf("a contracting dim out of range: seen through")
	}
}
