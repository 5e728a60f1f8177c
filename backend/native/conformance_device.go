package native

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Conformance files on another backend (a PJRT device): a device cannot
// run the check ops, so each test function is rewritten to return the
// operands of its checks as extra results; the device computes them and
// the checks run here, on the host, with the same kernels as on the
// native backend. Functions that take arguments, or use the interpreter's
// own ops (run_parallel, probe, print), are reported as unsupported.

// RunFileOn runs the tests of a conformance file on backend b.
func RunFileOn(ctx context.Context, path string, b backend.Backend, opts RunOptions) FileResult {
	src, err := os.ReadFile(path)
	if err != nil {
		return FileResult{Path: path, Err: err}
	}
	res := FileResult{Path: path}
	defer func() {
		if rec := recover(); rec != nil {
			res.Err = fmt.Errorf("panic: %v\n%s", rec, shortStack())
		}
	}()
	mods, err := stablehlo.Parse(path, src)
	if err != nil {
		res.Err = fmt.Errorf("parse: %w", err)
		return res
	}
	for mi, m := range mods {
		for _, tf := range testFuncs(m) {
			name := tf.Name
			r := FuncResult{Name: "@" + name}
			if m.Name != "" {
				r.Name = "@" + m.Name + "::" + r.Name
			}
			start := time.Now()
			// Parse again: the rewrite mutates the module.
			fresh, err := stablehlo.Parse(path, src)
			if err == nil {
				r.Err = runOnDevice(ctx, fresh[mi], name, b, opts.Timeout)
			} else {
				r.Err = err
			}
			r.Duration = time.Since(start)
			res.Funcs = append(res.Funcs, r)
		}
	}
	return res
}

// testFuncs returns the test functions of a module: @main when there is
// one, else every function without parameters.
func testFuncs(m *stablehlo.Module) []*stablehlo.Func {
	if f := m.Func("main"); f != nil {
		return []*stablehlo.Func{f}
	}
	var out []*stablehlo.Func
	for _, f := range m.Funcs {
		if f.Body != nil && f.Type != nil && len(f.Type.Inputs) == 0 {
			out = append(out, f)
		}
	}
	return out
}

type deviceCheck struct {
	op    *stablehlo.Op
	first int // index of its first operand among the results
}

func runOnDevice(ctx context.Context, m *stablehlo.Module, name string, b backend.Backend, timeout time.Duration) error {
	f := m.Func(name)
	if f == nil || f.Body.Entry() == nil {
		return fmt.Errorf("no function @%s", name)
	}
	if len(f.Type.Inputs) > 0 {
		return fmt.Errorf("@%s takes arguments: not run on a device: %w", name, backend.ErrNotImplemented)
	}
	if err := f.Body.Walk(func(op *stablehlo.Op) error {
		if strings.HasPrefix(op.Name, "interpreter.") {
			return fmt.Errorf("%s is the reference interpreter's own op: %w", op.Name, backend.ErrNotImplemented)
		}
		return nil
	}); err != nil {
		return err
	}
	blk := f.Body.Entry()
	var checks []deviceCheck
	var kept []*stablehlo.Op
	var ret *stablehlo.Op
	for _, op := range blk.Ops {
		switch {
		case isCheckOp(op):
			checks = append(checks, deviceCheck{op: op})
			// A check that returns its verdict (custom_call @check.eq)
			// leaves a constant true behind: the verdict is taken on the
			// host, and a failure fails the test there.
			for _, r := range op.Results {
				c, err := trueConstant(r)
				if err != nil {
					return err
				}
				kept = append(kept, c)
			}
		case op.Name == "func.return":
			ret = op
		default:
			kept = append(kept, op)
		}
	}
	if ret == nil {
		return fmt.Errorf("@%s has no func.return", name)
	}
	results := append([]*stablehlo.Value(nil), ret.Operands...)
	nOrig := len(results)
	for i := range checks {
		checks[i].first = len(results)
		results = append(results, checks[i].op.Operands...)
	}
	types := make([]stablehlo.Type, len(results))
	for i, v := range results {
		types[i] = v.Type
	}
	blk.Ops = append(kept, stablehlo.NewOp("func.return", results, nil, nil))
	f.Type = &stablehlo.FuncType{Inputs: nil, Results: types}
	f.ResultAttrs = nil
	if name != "main" {
		f.Name = "main"
	}
	f.Visibility = "public"
	m.Funcs = append([]*stablehlo.Func{f}, without(m.Funcs, f)...)

	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	exe, err := b.Compile(ctx, m, backend.Options{})
	if err != nil {
		return err
	}
	outs, err := exe.Run(ctx, nil)
	if err != nil {
		return err
	}
	if len(outs) != len(results) {
		return fmt.Errorf("device returned %d results, want %d (%d + check operands)", len(outs), len(results), nOrig)
	}
	for _, c := range checks {
		in := make([]Value, len(c.op.Operands))
		for i := range in {
			in[i] = outs[c.first+i]
		}
		k, err := checkKernel(c.op)
		if err != nil {
			return err
		}
		if _, err := k(nil, c.op, in); err != nil {
			return fmt.Errorf("%s at %v: %w", c.op.Name, c.op.Loc, err)
		}
	}
	return nil
}

func isCheckOp(op *stablehlo.Op) bool {
	if strings.HasPrefix(op.Name, "check.") {
		return true
	}
	if op.Name == "stablehlo.custom_call" {
		t, _ := op.Symbol("call_target_name")
		return strings.HasPrefix(t, "check.")
	}
	return false
}

func checkKernel(op *stablehlo.Op) (Kernel, error) {
	if op.Name == "stablehlo.custom_call" {
		t, _ := op.Symbol("call_target_name")
		if k, ok := customCalls[t]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("custom_call @%s has no host check", t)
	}
	if k, ok := kernels[op.Name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%s has no host check", op.Name)
}

func without(fs []*stablehlo.Func, f *stablehlo.Func) []*stablehlo.Func {
	var out []*stablehlo.Func
	for _, g := range fs {
		if g != f {
			out = append(out, g)
		}
	}
	return out
}

// trueConstant makes a constant op of r's type, all true, that takes r's
// place: r's uses now read the constant.
func trueConstant(r *stablehlo.Value) (*stablehlo.Op, error) {
	tt := stablehlo.AsTensor(r.Type)
	if tt == nil || !tt.IsStatic() || tt.DType() != dtype.Bool {
		return nil, fmt.Errorf("check result of type %v: %w", r.Type, backend.ErrNotImplemented)
	}
	lit, err := literal.New(dtype.Bool, tt.Shape)
	if err != nil {
		return nil, err
	}
	for i := range lit.Data {
		lit.Data[i] = 1
	}
	op := stablehlo.NewOp("stablehlo.constant", nil, nil, []stablehlo.NamedAttr{{Name: "value", Value: &stablehlo.DenseAttr{Type: tt, Value: lit}}})
	r.Def, r.Index = op, 0
	op.Results = []*stablehlo.Value{r}
	return op, nil
}
