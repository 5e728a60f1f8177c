package native

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Hand-built IR, so that the interpreter is tested without the parser.

func scalarI64(v int64) *literal.Literal {
	l, _ := literal.New(dtype.I64, nil)
	l.SetInt64(0, v)
	return l
}

func constOp(v int64) *stablehlo.Op {
	t := stablehlo.Tensor(dtype.I64)
	return stablehlo.NewOp("stablehlo.constant", nil, []stablehlo.Type{t},
		[]stablehlo.NamedAttr{{Name: "value", Value: &stablehlo.DenseAttr{Type: t, Value: scalarI64(v)}}})
}

func block(args []*stablehlo.Value, ops ...*stablehlo.Op) *stablehlo.Region {
	return &stablehlo.Region{Blocks: []*stablehlo.Block{{Args: args, Ops: ops}}}
}

func arg(t stablehlo.Type, i int) *stablehlo.Value { return &stablehlo.Value{Type: t, Index: i} }

// sumModule: @main(%n) = while (i < n) { s += i; i += 1 } -> s, with the
// body calling @inc for i += 1.
func sumModule() *stablehlo.Module {
	t := stablehlo.Tensor(dtype.I64)
	bt := stablehlo.Tensor(dtype.Bool)
	// @inc(%x) = x + 1
	x := arg(t, 0)
	one := constOp(1)
	add := stablehlo.NewOp("stablehlo.add", []*stablehlo.Value{x, one.Result()}, []stablehlo.Type{t}, nil)
	inc := &stablehlo.Func{Name: "inc", Type: &stablehlo.FuncType{Inputs: []stablehlo.Type{t}, Results: []stablehlo.Type{t}},
		Body: block([]*stablehlo.Value{x}, one, add, stablehlo.NewOp("func.return", []*stablehlo.Value{add.Result()}, nil, nil))}

	n := arg(t, 0)
	zero := constOp(0)
	ci, cs := arg(t, 0), arg(t, 1)
	cmp := stablehlo.NewOp("stablehlo.compare", []*stablehlo.Value{ci, n}, []stablehlo.Type{bt},
		[]stablehlo.NamedAttr{{Name: "comparison_direction", Value: &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: "LT"}}})
	cond := block([]*stablehlo.Value{ci, cs}, cmp, stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{cmp.Result()}, nil, nil))
	bi, bs := arg(t, 0), arg(t, 1)
	s2 := stablehlo.NewOp("stablehlo.add", []*stablehlo.Value{bs, bi}, []stablehlo.Type{t}, nil)
	call := stablehlo.NewOp("func.call", []*stablehlo.Value{bi}, []stablehlo.Type{t},
		[]stablehlo.NamedAttr{{Name: "callee", Value: stablehlo.SymbolRefAttr("inc")}})
	body := block([]*stablehlo.Value{bi, bs}, s2, call, stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{call.Result(), s2.Result()}, nil, nil))
	w := stablehlo.NewOp("stablehlo.while", []*stablehlo.Value{zero.Result(), zero.Result()}, []stablehlo.Type{t, t}, nil, cond, body)
	ret := stablehlo.NewOp("func.return", []*stablehlo.Value{w.Results[1]}, nil, nil)
	main := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Inputs: []stablehlo.Type{t}, Results: []stablehlo.Type{t}},
		Body: block([]*stablehlo.Value{n}, zero, w, ret)}
	return &stablehlo.Module{Funcs: []*stablehlo.Func{main, inc}}
}

func TestInterpreterWhileCall(t *testing.T) {
	b, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.Compile(context.Background(), sumModule(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exe.Run(context.Background(), []*literal.Literal{scalarI64(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Int64(0) != 45 {
		t.Fatalf("sum below 10 = %v, want 45", out[0].Int64(0))
	}
	if _, err := exe.Run(context.Background(), nil); err == nil {
		t.Fatal("run with a missing argument succeeded")
	}
}

func TestInterpreterMissingKernel(t *testing.T) {
	t32 := stablehlo.Tensor(dtype.F32)
	x := arg(t32, 0)
	op := stablehlo.NewOp("stablehlo.no_such_op", []*stablehlo.Value{x}, []stablehlo.Type{t32}, nil)
	op.Loc = stablehlo.Loc{Line: 3, Col: 5}
	f := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Inputs: []stablehlo.Type{t32}, Results: []stablehlo.Type{t32}},
		Body: block([]*stablehlo.Value{x}, op, stablehlo.NewOp("func.return", []*stablehlo.Value{op.Result()}, nil, nil))}
	_, err := (&Backend{}).Compile(context.Background(), &stablehlo.Module{Funcs: []*stablehlo.Func{f}}, backend.Options{})
	if err == nil || !strings.Contains(err.Error(), "stablehlo.no_such_op") || !strings.Contains(err.Error(), "3:5") {
		t.Fatalf("error %v does not name the op and its location", err)
	}
}

func TestInterpreterCancel(t *testing.T) {
	// An endless loop stops when the context ends.
	tt := stablehlo.Tensor(dtype.I64)
	bt := stablehlo.Tensor(dtype.Bool)
	tr := stablehlo.NewOp("stablehlo.constant", nil, []stablehlo.Type{bt},
		[]stablehlo.NamedAttr{{Name: "value", Value: &stablehlo.DenseAttr{Type: bt, Value: &literal.Literal{DType: dtype.Bool, Shape: []int64{}, Data: []byte{1}}}}})
	ci := arg(tt, 0)
	cond := block([]*stablehlo.Value{ci}, tr, stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{tr.Result()}, nil, nil))
	bi := arg(tt, 0)
	body := block([]*stablehlo.Value{bi}, stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{bi}, nil, nil))
	n := arg(tt, 0)
	w := stablehlo.NewOp("stablehlo.while", []*stablehlo.Value{n}, []stablehlo.Type{tt}, nil, cond, body)
	f := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Inputs: []stablehlo.Type{tt}, Results: []stablehlo.Type{tt}},
		Body: block([]*stablehlo.Value{n}, w, stablehlo.NewOp("func.return", []*stablehlo.Value{w.Result()}, nil, nil))}
	exe, err := (&Backend{}).Compile(context.Background(), &stablehlo.Module{Funcs: []*stablehlo.Func{f}}, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = exe.Run(ctx, []*literal.Literal{scalarI64(1)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

// A function calling itself without end is stopped with an error.
func TestInterpreterRecursionLimit(t *testing.T) {
	tt := stablehlo.Tensor(dtype.I64)
	x := arg(tt, 0)
	call := stablehlo.NewOp("func.call", []*stablehlo.Value{x}, []stablehlo.Type{tt},
		[]stablehlo.NamedAttr{{Name: "callee", Value: stablehlo.SymbolRefAttr("main")}})
	f := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Inputs: []stablehlo.Type{tt}, Results: []stablehlo.Type{tt}},
		Body: block([]*stablehlo.Value{x}, call, stablehlo.NewOp("func.return", []*stablehlo.Value{call.Result()}, nil, nil))}
	exe, err := (&Backend{}).Compile(context.Background(), &stablehlo.Module{Funcs: []*stablehlo.Func{f}}, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = exe.Run(context.Background(), []*literal.Literal{scalarI64(1)})
	if err == nil || !strings.Contains(err.Error(), "nested calls") {
		t.Fatalf("err = %.200v, want the call depth limit", err)
	}
}
