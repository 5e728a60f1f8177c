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
// native backend, returning its first result.
func runLowered(t *testing.T, op string, pos []Value, kw map[string]Value) *literal.Literal {
	t.Helper()
	return runLoweredAll(t, op, nil, pos, kw)[0]
}

// runLoweredAll lowers one call whose leading positional arguments are the
// constants consts, then pos, and runs it on the native backend, returning
// every tensor result.
func runLoweredAll(t *testing.T, op string, consts []*literal.Literal, pos []Value, kw map[string]Value) []*literal.Literal {
	t.Helper()
	res, err := compileLowered(t, op, consts, pos, kw).Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("run %s: %v", op, err)
	}
	return res
}

// compileLowered lowers one call (consts as its leading tensor arguments,
// then pos) into a function returning every tensor result, compiled for
// the native backend.
func compileLowered(tb testing.TB, op string, consts []*literal.Literal, pos []Value, kw map[string]Value) backend.Executable {
	tb.Helper()
	b := &stablehlo.Block{}
	c := NewLowerCtx(b)
	c.Loc = stablehlo.Loc{File: "node_" + op}
	args := make([]Value, 0, len(consts)+len(pos))
	for _, l := range consts {
		args = append(args, TensorValue(c.Const(l)))
	}
	out, err := c.Call(op, append(args, pos...), kw)
	if err != nil {
		tb.Fatalf("%s: %v", op, err)
	}
	var vals []*stablehlo.Value
	var types []stablehlo.Type
	for _, o := range out {
		if o.T != nil {
			vals, types = append(vals, o.T), append(types, o.T.Type)
		}
	}
	b.Ops = append(b.Ops, stablehlo.NewOp("func.return", vals, nil, nil))
	f := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Results: types}, Body: &stablehlo.Region{Blocks: []*stablehlo.Block{b}}}
	be, err := backend.Open("cpu")
	if err != nil {
		tb.Fatal(err)
	}
	exe, err := be.Compile(context.Background(), &stablehlo.Module{Funcs: []*stablehlo.Func{f}}, backend.Options{})
	if err != nil {
		tb.Fatalf("compile %s: %v", op, err)
	}
	return exe
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
