package native

import (
	"bytes"
	"math/rand"
	"sort"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func TestSortStableMultiOperand(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	keys := mvRandIdx(rng, dtype.I16, 0, 5, 3, 40, 2) // many ties
	vals := mvRandIdx(rng, dtype.I64, 0, 1000, 3, 40, 2)
	lt := mvBinaryRegion(dtype.I16, "stablehlo.compare", map[string]stablehlo.Attr{
		"comparison_direction": &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: "LT"}})
	// The comparator sees (k_lhs, k_rhs, v_lhs, v_rhs): extend the block.
	blk := lt.Entry()
	t64 := stablehlo.Tensor(dtype.I64)
	blk.Args = append(blk.Args, &stablehlo.Value{Type: t64, Index: 2}, &stablehlo.Value{Type: t64, Index: 3})
	op := mvOp("stablehlo.sort", []stablehlo.Type{mvT(dtype.I16, 3, 40, 2), mvT(dtype.I64, 3, 40, 2)},
		map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: -2}, "is_stable": stablehlo.BoolAttr(true)}, lt)
	out := mvRun(t, mvEnv{}, op, keys, vals)
	gk, gv := out[0].(*literal.Literal), out[1].(*literal.Literal)

	// The same order through the region call: negate twice the rhs key, an
	// op the comparator compiler does not take.
	t16 := stablehlo.Tensor(dtype.I16)
	n1 := stablehlo.NewOp("stablehlo.negate", []*stablehlo.Value{blk.Args[1]}, []stablehlo.Type{t16}, nil)
	n2 := stablehlo.NewOp("stablehlo.negate", []*stablehlo.Value{n1.Result()}, []stablehlo.Type{t16}, nil)
	cmp := blk.Ops[0]
	slow := stablehlo.NewOp(cmp.Name, []*stablehlo.Value{blk.Args[0], n2.Result()}, []stablehlo.Type{cmp.Results[0].Type}, cmp.Attrs)
	ret := stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{slow.Result()}, nil, nil)
	slowRegion := &stablehlo.Region{Blocks: []*stablehlo.Block{{Args: blk.Args, Ops: []*stablehlo.Op{n1, n2, slow, ret}}}}
	if compileCmp(slowRegion) != nil {
		t.Fatal("comparator with negate was compiled")
	}
	op2 := mvOp("stablehlo.sort", []stablehlo.Type{mvT(dtype.I16, 3, 40, 2), mvT(dtype.I64, 3, 40, 2)},
		map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: 1}}, slowRegion)
	out2 := mvRun(t, mvEnv{}, op2, keys, vals)
	if !bytes.Equal(out2[0].(*literal.Literal).Data, gk.Data) || !bytes.Equal(out2[1].(*literal.Literal).Data, gv.Data) {
		t.Errorf("sort through the region call differs from the compiled comparator")
	}
	for a := int64(0); a < 3; a++ {
		for c := int64(0); c < 2; c++ {
			type kv struct{ k, v int64 }
			row := make([]kv, 40)
			for i := range row {
				f := int(mvFlat(keys.Shape, []int64{a, int64(i), c}))
				row[i] = kv{keys.Int64(f), vals.Int64(f)}
			}
			sort.SliceStable(row, func(i, j int) bool { return row[i].k < row[j].k })
			for i, e := range row {
				f := int(mvFlat(keys.Shape, []int64{a, int64(i), c}))
				if gk.Int64(f) != e.k || gv.Int64(f) != e.v {
					t.Fatalf("sort row (%d,:,%d) pos %d: got (%d,%d), want (%d,%d)", a, c, i, gk.Int64(f), gv.Int64(f), e.k, e.v)
				}
			}
		}
	}
}

func TestTopKOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	x, _ := literal.New(dtype.F32, []int64{4, 9})
	for i := 0; i < x.Len(); i++ {
		x.SetFloat64(i, float64(rng.Intn(5)-2)) // many ties
	}
	op := mvOp("chlo.top_k", []stablehlo.Type{mvT(dtype.F32, 4, 3), mvT(dtype.I32, 4, 3)}, map[string]stablehlo.Attr{"k": &stablehlo.IntAttr{Value: 3}})
	out := mvRun(t, nil, op, x)
	v, ix := out[0].(*literal.Literal), out[1].(*literal.Literal)
	for r := 0; r < 4; r++ {
		for j := 0; j < 3; j++ {
			i := ix.Int64(r*3 + j)
			if !bytes.Equal(mvElem(v, []int64{int64(r), int64(j)}), mvElem(x, []int64{int64(r), i})) {
				t.Errorf("top_k row %d: value %d is not x[%d]", r, j, i)
			}
			if j > 0 {
				p := ix.Int64(r*3 + j - 1)
				a, b := x.Float64(r*9+int(p)), x.Float64(r*9+int(i))
				if a < b || (a == b && p > i) {
					t.Errorf("top_k row %d: (%v@%d) before (%v@%d)", r, a, p, b, i)
				}
			}
		}
	}
}

// top_k with k much smaller than the row (the heap path) agrees with a
// full stable sort of the row, ties included.
func TestTopKHeapMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	x := mvRandIdx(rng, dtype.I64, -20, 20, 3, 200)
	op := mvOp("chlo.top_k", []stablehlo.Type{mvT(dtype.I64, 3, 7), mvT(dtype.I32, 3, 7)}, map[string]stablehlo.Attr{"k": &stablehlo.IntAttr{Value: 7}})
	out := mvRun(t, nil, op, x)
	v, ix := out[0].(*literal.Literal), out[1].(*literal.Literal)
	for r := 0; r < 3; r++ {
		pos := make([]int, 200)
		for i := range pos {
			pos[i] = i
		}
		sort.SliceStable(pos, func(a, b int) bool { return x.Int64(r*200+pos[a]) > x.Int64(r*200+pos[b]) })
		for j := 0; j < 7; j++ {
			if ix.Int64(r*7+j) != int64(pos[j]) || v.Int64(r*7+j) != x.Int64(r*200+pos[j]) {
				t.Fatalf("row %d: top_k #%d = (%d@%d), want (%d@%d)", r, j, v.Int64(r*7+j), ix.Int64(r*7+j), x.Int64(r*200+pos[j]), pos[j])
			}
		}
	}
}
