package capi

import (
	"context"
	"fmt"
	"sort"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// A plan is what one op signature compiles to, cached by the signature
// key (op, dtypes and sizes of tensors, dtypes of CPU scalars, values of
// other arguments): a hit goes straight to running the executable, with
// no lowering, printing or hashing of module text.
type plan struct {
	op      *eagerOp
	decline string       // non-empty: the device declines this call
	resize  []resizeSpec // out= arguments to resize before the call
	host    bool         // a host kernel (output shapes depend on data)
	exe     backend.Executable
	params  []paramRef // the module's arguments
	outs    []outMeta  // the module's results
	rets    []retSpec  // PyTorch's returns
	writes  []writeSpec
}

// paramRef says where module argument k comes from: argument arg (item of
// a list when item >= 0), as a device view, a CPU tensor, or a CPU scalar
// materialised with dtype dt.
type paramRef struct {
	arg, item int
	dt        dtype.DType
}

type outMeta struct {
	dt    dtype.DType
	shape []int64
}

// retSpec is PyTorch's return j: a new tensor (module result res), a list
// of n new tensors (results res...), the written argument arg, or None.
type retSpec struct {
	kind int64
	res  int
	n    int
	arg  int
}

// Return kinds, as written to the caller.
const (
	retNone  int64 = 0
	retNew   int64 = 1
	retAlias int64 = 2
	retList  int64 = 3
)

// writeSpec stores module result res through the view of argument arg.
type writeSpec struct{ res, arg int }

// resizeSpec asks the caller to resize out= argument arg to shape first.
type resizeSpec struct {
	arg   int
	shape []int64
}

// at returns argument arg (item) of a call.
func at(args []earg, arg, item int) *earg {
	if item >= 0 {
		return &args[arg].list[item]
	}
	return &args[arg]
}

// build lowers op for the call's signature, compiles it, and returns its
// plan; a plan that declines says why.
func (d *Device) build(ctx context.Context, op *eagerOp, args []earg) *plan {
	p := &plan{op: op}
	if op.entry == nil {
		p.decline = op.reason
		return p
	}
	if len(args) != len(op.schema.Params) {
		p.decline = fmt.Sprintf("%d arguments for a schema of %d", len(args), len(op.schema.Params))
		return p
	}
	block := &stablehlo.Block{}
	c := aten.NewLowerCtx(block)
	// A Python number in a Tensor slot becomes a 0-d argument with the
	// dtype PyTorch's promotion gives it among the call's operands.
	var ops []dtype.Operand
	for i := range args {
		a := &args[i]
		switch a.tag {
		case tagTensor:
			ops = append(ops, dtype.Operand{DType: a.view.DType, ZeroDim: len(a.view.Shape) == 0})
		case tagHostTensor:
			ops = append(ops, dtype.Operand{DType: a.dt, ZeroDim: len(a.lit.Shape) == 0})
		case tagScalar:
			ops = append(ops, scalarOperand(a))
		}
	}
	numDT, err := dtype.ResultType(ops...)
	if err != nil {
		numDT = dtype.F32
	}
	param := func(arg, item int) aten.Value {
		a := at(args, arg, item)
		var t *stablehlo.TensorType
		pr := paramRef{arg: arg, item: item}
		switch a.tag {
		case tagTensor:
			pr.dt = a.view.DType
			t = stablehlo.Tensor(a.view.DType, a.view.Shape...)
		case tagHostTensor:
			pr.dt = a.dt
			t = stablehlo.Tensor(a.dt, a.lit.Shape...)
		case tagScalar:
			pr.dt = a.dt
			if a.wrapped {
				pr.dt = numDT
			}
			t = stablehlo.Tensor(pr.dt)
		default:
			return aten.None()
		}
		v := &stablehlo.Value{Type: t, Index: len(block.Args)}
		block.Args = append(block.Args, v)
		p.params = append(p.params, pr)
		return aten.TensorValue(v)
	}
	kw := map[string]aten.Value{}
	for i := range args {
		name := op.bindName[i]
		if name == "" {
			if op.written[i] && returned(op.retArg, i) {
				continue
			}
			if args[i].tag != tagNone && !op.dropped[op.schema.Params[i].Name] {
				p.decline = fmt.Sprintf("argument %s is not in the registry's schema of %s", op.schema.Params[i].Name, op.entry.Name)
				return p
			}
			continue
		}
		kw[name] = value(&args[i], i, param)
	}
	if op.dtypeFrom >= 0 && args[op.dtypeFrom].tag == tagTensor {
		kw["dtype"] = aten.DTypeValue(args[op.dtypeFrom].view.DType)
	}
	entry := op.entry
	var extra map[int]string
	if op.alt != nil {
		ok := true
		for _, name := range op.alt.writes {
			if i := op.schema.Param(name); i < 0 || args[i].tag != tagTensor {
				ok = false
			}
		}
		if ok {
			entry, extra = op.alt.entry, op.alt.writes
		}
	}
	fs := entry.ParsedSchema()
	bound, err := aten.Bind(fs, nil, kw)
	if err != nil {
		p.decline = err.Error()
		return p
	}
	if entry.Kind == aten.HostFallback {
		p.host = true
		p.params = nil
		return p
	}
	res, err := entry.Call(c, bound)
	if err != nil {
		p.decline = "lowering: " + err.Error()
		return p
	}
	var outs []*stablehlo.Value
	addOut := func(v *stablehlo.Value) int {
		outs = append(outs, v)
		t := c.Type(v)
		p.outs = append(p.outs, outMeta{dt: t.DType(), shape: t.Shape})
		return len(outs) - 1
	}
	for j := range op.schema.Returns {
		if j >= len(res) {
			p.decline = fmt.Sprintf("the registry's %s returns %d values, PyTorch's %d", op.entry.Name, len(res), len(op.schema.Returns))
			return p
		}
		r := res[j]
		switch {
		case op.retArg[j] >= 0:
			i := op.retArg[j]
			dst := &args[i]
			if r.Kind != aten.KTensor || r.T == nil || dst.tag != tagTensor {
				p.decline = fmt.Sprintf("written argument %s is not a device tensor", op.schema.Params[i].Name)
				return p
			}
			from, to := c.DType(r.T), dst.view.DType
			if !dtype.CanCast(from, to) {
				p.decline = fmt.Sprintf("result type %s can't be cast to the desired output type %s", from.Torch(), to.Torch())
				return p
			}
			if shape := c.Shape(r.T); !sameShape(shape, dst.view.Shape) {
				if op.schema.Params[i].Name == "self" {
					p.decline = fmt.Sprintf("output with shape %v doesn't match the broadcast shape %v", dst.view.Shape, shape)
					return p
				}
				p.resize = append(p.resize, resizeSpec{arg: i, shape: shape})
				continue
			}
			k := addOut(c.Convert(r.T, to))
			p.writes = append(p.writes, writeSpec{res: k, arg: i})
			p.rets = append(p.rets, retSpec{kind: retAlias, arg: i})
		case r.Kind == aten.KTensor && r.T != nil:
			p.rets = append(p.rets, retSpec{kind: retNew, res: addOut(r.T)})
		case r.Kind == aten.KList:
			rs := retSpec{kind: retList, res: len(outs), n: len(r.List)}
			for _, it := range r.List {
				if it.Kind != aten.KTensor || it.T == nil {
					p.decline = "a returned list holds a non-tensor"
					return p
				}
				addOut(it.T)
			}
			p.rets = append(p.rets, rs)
		case r.Kind == aten.KNone:
			p.rets = append(p.rets, retSpec{kind: retNone})
		default:
			p.decline = fmt.Sprintf("return %d is %v, not a tensor", j, r)
			return p
		}
	}
	for _, k := range sortedKeys(extra) {
		name := extra[k]
		i := op.schema.Param(name)
		if k >= len(res) || res[k].Kind != aten.KTensor || res[k].T == nil {
			p.decline = fmt.Sprintf("%s returns no tensor %d for %s", entry.Name, k, name)
			return p
		}
		dst := &args[i].view
		if !sameShape(c.Shape(res[k].T), dst.Shape) {
			p.decline = fmt.Sprintf("%s's updated %s has shape %v, the argument %v", entry.Name, name, c.Shape(res[k].T), dst.Shape)
			return p
		}
		p.writes = append(p.writes, writeSpec{res: addOut(c.Convert(res[k].T, dst.DType)), arg: i})
	}
	if err := c.Err(); err != nil {
		p.decline = "lowering: " + err.Error()
		return p
	}
	if len(p.resize) > 0 {
		return p
	}
	m := runtime.EagerModule(block, outs)
	exe, err := runtime.CompileEager(ctx, d.b, m, "eager "+op.name)
	if err != nil {
		p.decline = "compile: " + err.Error()
		return p
	}
	p.exe = exe
	return p
}

func sortedKeys(m map[int]string) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func scalarOperand(a *earg) dtype.Operand {
	if !a.wrapped {
		return dtype.Operand{DType: a.dt, ZeroDim: true}
	}
	// A wrapped number ranks as its Python type.
	switch {
	case a.dt.IsComplex():
		return dtype.Operand{DType: dtype.C128, Wrapped: true}
	case a.dt.IsFloat():
		return dtype.Operand{DType: dtype.F64, Wrapped: true}
	case a.dt == dtype.Bool:
		return dtype.Operand{DType: dtype.Bool, Wrapped: true}
	}
	return dtype.Operand{DType: dtype.I64, Wrapped: true}
}

// value converts argument i for binding; tensors become module arguments
// through param.
func value(a *earg, i int, param func(arg, item int) aten.Value) aten.Value {
	switch a.tag {
	case tagTensor, tagHostTensor, tagScalar:
		return param(i, -1)
	case tagInt:
		return aten.IntValue(a.i)
	case tagFloat:
		return aten.FloatValue(a.f)
	case tagBool:
		return aten.BoolValue(a.b)
	case tagComplex:
		return aten.ComplexValue(a.c)
	case tagStr:
		return aten.StrValue(a.s)
	case tagDType:
		return aten.DTypeValue(a.dt)
	case tagInts:
		return aten.IntsValue(a.ints)
	case tagFloats:
		items := make([]aten.Value, len(a.floats))
		for k, f := range a.floats {
			items[k] = aten.FloatValue(f)
		}
		return aten.ListValue(items...)
	case tagBools:
		items := make([]aten.Value, len(a.bools))
		for k, b := range a.bools {
			items[k] = aten.BoolValue(b)
		}
		return aten.ListValue(items...)
	case tagList:
		items := make([]aten.Value, len(a.list))
		for k := range a.list {
			if a.list[k].tag == tagNone {
				items[k] = aten.None()
				continue
			}
			items[k] = param(i, k)
		}
		return aten.ListValue(items...)
	}
	return aten.None()
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
