package aten

import (
	"context"
	"math"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	_ "github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// runLowered lowers one call with no tensor inputs and runs it on the
// native backend.
func runLowered(t *testing.T, op string, pos []Value, kw map[string]Value) *literal.Literal {
	t.Helper()
	b := &stablehlo.Block{}
	c := NewLowerCtx(b)
	c.Loc = stablehlo.Loc{File: "node_" + op}
	out, err := c.Call(op, pos, kw)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	b.Ops = append(b.Ops, stablehlo.NewOp("func.return", []*stablehlo.Value{out[0].T}, nil, nil))
	f := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Results: []stablehlo.Type{out[0].T.Type}},
		Body: &stablehlo.Region{Blocks: []*stablehlo.Block{b}}}
	be, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := be.Compile(context.Background(), &stablehlo.Module{Funcs: []*stablehlo.Func{f}}, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exe.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

// The random ops draw from PyTorch's distributions (not its stream).
func TestRandomDistributions(t *testing.T) {
	const n = 20000
	u := runLowered(t, "aten::rand.default", []Value{IntsValue([]int64{n})}, nil)
	z := runLowered(t, "aten::randn.default", []Value{IntsValue([]int64{n})}, map[string]Value{"dtype": DTypeValue(dtype.F64)})
	var su, sz, szz float64
	for i := 0; i < n; i++ {
		x := u.Float64(i)
		if x < 0 || x >= 1 {
			t.Fatalf("rand gave %v", x)
		}
		su += x
		sz += z.Float64(i)
		szz += z.Float64(i) * z.Float64(i)
	}
	if m := su / n; math.Abs(m-0.5) > 0.02 {
		t.Errorf("rand mean %v", m)
	}
	if m, v := sz/n, szz/n-(sz/n)*(sz/n); math.Abs(m) > 0.05 || math.Abs(v-1) > 0.05 {
		t.Errorf("randn mean %v variance %v", m, v)
	}
	p := runLowered(t, "aten::randperm.default", []Value{IntValue(100)}, nil)
	seen := map[int64]bool{}
	for i := 0; i < 100; i++ {
		seen[p.Int64(i)] = true
	}
	if len(seen) != 100 || seen[100] || seen[-1] {
		t.Errorf("randperm(100) is not a permutation: %d distinct", len(seen))
	}
	r := runLowered(t, "aten::randint.low", []Value{IntValue(-3), IntValue(4), IntsValue([]int64{1000})}, nil)
	for i := 0; i < 1000; i++ {
		if v := r.Int64(i); v < -3 || v >= 4 {
			t.Fatalf("randint(-3, 4) gave %d", v)
		}
	}
}
