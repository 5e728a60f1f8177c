package eager

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
	// transposed holds executables of the op taking some of its tensor
	// arguments as the whole buffer a 2-D transposed view reads (a
	// weight as its .t()), by the mask of those arguments (bit k:
	// p.params[k]); see transposedWhole. Under the device's lock.
	transposed map[uint64]backend.Executable
	id         uint64     // a number for fused blocks' structure keys
	params     []paramRef // the module's arguments

	// How to lower the call again (fused blocks): the entry, its bound
	// arguments with the module arguments as placeholders, and how each
	// module result is taken from the entry's results.
	entry  *aten.Entry
	kw     map[string]aten.Value
	argIx  map[*stablehlo.Value]int
	post   []postOut
	outs   []outMeta // the module's results
	rets   []retSpec // PyTorch's returns
	writes []writeSpec
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

// writeSpec stores module result res through the view of argument arg
// (of its item when item >= 0: a Tensor(a!)[] argument).
type writeSpec struct{ res, arg, item int }

// resizeSpec asks the caller to resize out= argument arg to shape first.
type resizeSpec struct {
	arg   int
	shape []int64
}

// postOut takes module result k from the entry's result res (item of a
// list when item >= 0), converted to conv when it is valid.
type postOut struct {
	res, item int
	conv      dtype.DType
}

// at returns argument arg (item) of a call.
func at(args []earg, arg, item int) *earg {
	if item >= 0 {
		return &args[arg].list[item]
	}
	return &args[arg]
}

// deviceTensors reports whether a is a device tensor, or a list of them.
func deviceTensors(a *earg) bool {
	if a.tag == tagList {
		for k := range a.list {
			if a.list[k].tag != tagTensor {
				return false
			}
		}
		return len(a.list) > 0
	}
	return a.tag == tagTensor
}

// build lowers op for the call's signature, compiles it, and returns its
// plan; a plan that declines says why.
func (d *Device) build(ctx context.Context, op *eagerOp, args []earg) *plan {
	p, block, outs := d.lower(op, args, nil)
	if p.decline == "" {
		// A number the program only converts (a multi-tensor op's step
		// size, float64 from Python, used as float32) is passed converted.
		if rt := convertedScalars(p, args, block); len(rt) > 0 {
			if q, qb, qo := d.lower(op, args, rt); q.decline == "" {
				p, block, outs = q, qb, qo
			}
		}
	}
	if p.decline != "" || p.host || len(p.resize) > 0 || d.mode == Fused {
		return p // fused mode compiles blocks, not single ops
	}
	if err := p.compile(ctx, d, block, outs); err != nil {
		p.decline = err.Error()
	}
	return p
}

// convertedScalars returns the module arguments holding CPU scalars whose
// every use is a convert to float32 (the scalar's literal is then made in
// float32: Go's conversion rounds as convert does). To (b)float16 the
// program rounds twice, through float32, as PyTorch does, a literal once:
// those stay.
func convertedScalars(p *plan, args []earg, block *stablehlo.Block) map[paramRef]bool {
	if block == nil {
		return nil
	}
	onlyF32 := map[*stablehlo.Value]bool{}
	for _, o := range block.Ops {
		for _, v := range o.Operands {
			k, ok := p.argIx[v]
			if !ok || at(args, p.params[k].arg, p.params[k].item).tag != tagScalar {
				continue
			}
			f32 := false
			if o.Name == "stablehlo.convert" && len(o.Results) == 1 {
				t := stablehlo.AsTensor(o.Results[0].Type)
				f32 = t != nil && t.DType() == dtype.F32
			}
			if prev, seen := onlyF32[v]; seen {
				f32 = f32 && prev
			}
			onlyF32[v] = f32
		}
	}
	var rt map[paramRef]bool
	for v, f32 := range onlyF32 {
		if !f32 {
			continue
		}
		if rt == nil {
			rt = map[paramRef]bool{}
		}
		pr := p.params[p.argIx[v]]
		rt[paramRef{arg: pr.arg, item: pr.item}] = true
	}
	return rt
}

// lower lowers op for the call's signature; the scalars in asF32 are
// materialised as float32 (convertedScalars).
func (d *Device) lower(op *eagerOp, args []earg, asF32 map[paramRef]bool) (*plan, *stablehlo.Block, []*stablehlo.Value) {
	d.planSeq++
	p := &plan{op: op, id: d.planSeq, argIx: map[*stablehlo.Value]int{}}
	if op.entry == nil {
		p.decline = op.reason
		return p, nil, nil
	}
	if len(args) != len(op.schema.Params) {
		p.decline = fmt.Sprintf("%d arguments for a schema of %d", len(args), len(op.schema.Params))
		return p, nil, nil
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
			if asF32[paramRef{arg: arg, item: item}] {
				pr.dt = dtype.F32
			}
			t = stablehlo.Tensor(pr.dt)
		default:
			return aten.None()
		}
		v := &stablehlo.Value{Type: t, Index: len(block.Args)}
		p.argIx[v] = len(block.Args)
		block.Args = append(block.Args, v)
		p.params = append(p.params, pr)
		return aten.TensorValue(v)
	}
	kw := map[string]aten.Value{}
	for i := range args {
		name := op.bindName[i]
		if name == "" {
			if op.written[i] && (returned(op.retArg, i) || op.alt != nil && hasValue(op.alt.writes, op.schema.Params[i].Name)) {
				continue
			}
			if args[i].tag != tagNone && !op.dropped[op.schema.Params[i].Name] {
				p.decline = fmt.Sprintf("argument %s is not in the registry's schema of %s", op.schema.Params[i].Name, op.entry.Name)
				return p, nil, nil
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
			switch i := op.schema.Param(name); {
			case i < 0 || args[i].tag == tagNone:
				ok = false
			case !deviceTensors(&args[i]):
				// an update the device cannot store (a CPU tensor among them)
				p.decline = fmt.Sprintf("argument %s, which it updates in place, is not all on the device", name)
				return p, nil, nil
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
		return p, nil, nil
	}
	if entry.Kind == aten.HostFallback {
		p.host = true
		p.params = nil
		return p, nil, nil
	}
	p.entry, p.kw = entry, kw
	res, err := entry.Call(c, bound)
	if err != nil {
		p.decline = "lowering: " + err.Error()
		return p, nil, nil
	}
	var outs []*stablehlo.Value
	addOut := func(v *stablehlo.Value, r, item int, conv dtype.DType) int {
		if conv != dtype.Invalid {
			v = c.Convert(v, conv)
		}
		outs = append(outs, v)
		t := c.Type(v)
		p.outs = append(p.outs, outMeta{dt: t.DType(), shape: t.Shape})
		p.post = append(p.post, postOut{res: r, item: item, conv: conv})
		return len(outs) - 1
	}
	for j := range op.schema.Returns {
		if j >= len(res) {
			p.decline = fmt.Sprintf("the registry's %s returns %d values, PyTorch's %d", op.entry.Name, len(res), len(op.schema.Returns))
			return p, nil, nil
		}
		r := res[j]
		switch {
		case op.retArg[j] >= 0:
			i := op.retArg[j]
			dst := &args[i]
			if r.Kind != aten.KTensor || r.T == nil || dst.tag != tagTensor {
				p.decline = fmt.Sprintf("written argument %s is not a device tensor", op.schema.Params[i].Name)
				return p, nil, nil
			}
			from, to := c.DType(r.T), dst.view.DType
			if !dtype.CanCast(from, to) {
				p.decline = fmt.Sprintf("result type %s can't be cast to the desired output type %s", from.Torch(), to.Torch())
				return p, nil, nil
			}
			if shape := c.Shape(r.T); !sameShape(shape, dst.view.Shape) {
				if op.schema.Params[i].Name == "self" {
					p.decline = fmt.Sprintf("output with shape %v doesn't match the broadcast shape %v", dst.view.Shape, shape)
					return p, nil, nil
				}
				p.resize = append(p.resize, resizeSpec{arg: i, shape: shape})
				continue
			}
			k := addOut(r.T, j, -1, to)
			p.writes = append(p.writes, writeSpec{res: k, arg: i, item: -1})
			p.rets = append(p.rets, retSpec{kind: retAlias, arg: i})
		case r.Kind == aten.KTensor && r.T != nil:
			p.rets = append(p.rets, retSpec{kind: retNew, res: addOut(r.T, j, -1, dtype.Invalid)})
		case r.Kind == aten.KList:
			rs := retSpec{kind: retList, res: len(outs), n: len(r.List)}
			for k, it := range r.List {
				if it.Kind != aten.KTensor || it.T == nil {
					p.decline = "a returned list holds a non-tensor"
					return p, nil, nil
				}
				addOut(it.T, j, k, dtype.Invalid)
			}
			p.rets = append(p.rets, rs)
		case r.Kind == aten.KNone:
			p.rets = append(p.rets, retSpec{kind: retNone})
		default:
			p.decline = fmt.Sprintf("return %d is %v, not a tensor", j, r)
			return p, nil, nil
		}
	}
	for _, k := range sortedKeys(extra) {
		name := extra[k]
		i := op.schema.Param(name)
		if k >= len(res) {
			p.decline = fmt.Sprintf("%s returns no value %d for %s", entry.Name, k, name)
			return p, nil, nil
		}
		// A Tensor(a!)[] argument takes a returned list, item by item.
		vals, items := []aten.Value{res[k]}, []int{-1}
		if args[i].tag == tagList {
			if res[k].Kind != aten.KList || len(res[k].List) != len(args[i].list) {
				p.decline = fmt.Sprintf("%s returns no list of %d tensors %d for %s", entry.Name, len(args[i].list), k, name)
				return p, nil, nil
			}
			vals, items = res[k].List, nil
			for it := range vals {
				items = append(items, it)
			}
		}
		for n, v := range vals {
			if v.Kind != aten.KTensor || v.T == nil {
				p.decline = fmt.Sprintf("%s returns no tensor %d for %s", entry.Name, k, name)
				return p, nil, nil
			}
			dst := &at(args, i, items[n]).view
			if from := c.DType(v.T); !dtype.CanCast(from, dst.DType) {
				p.decline = fmt.Sprintf("result type %s can't be cast to the desired output type %s", from.Torch(), dst.DType.Torch())
				return p, nil, nil
			}
			if !sameShape(c.Shape(v.T), dst.Shape) {
				p.decline = fmt.Sprintf("%s's updated %s has shape %v, the argument %v", entry.Name, name, c.Shape(v.T), dst.Shape)
				return p, nil, nil
			}
			p.writes = append(p.writes, writeSpec{res: addOut(v.T, k, items[n], dst.DType), arg: i, item: items[n]})
		}
	}
	if err := c.Err(); err != nil {
		p.decline = "lowering: " + err.Error()
		return p, nil, nil
	}
	return p, block, outs
}

// compile compiles the op's own module (block returning outs; a fresh
// lowering when block is nil).
func (p *plan) compile(ctx context.Context, d *Device, block *stablehlo.Block, outs []*stablehlo.Value) error {
	if block == nil {
		block = &stablehlo.Block{}
		c := aten.NewLowerCtx(block)
		params := make([]*stablehlo.Value, len(p.params))
		for k := range params {
			params[k] = &stablehlo.Value{Type: p.paramType(k), Index: k}
			block.Args = append(block.Args, params[k])
		}
		var err error
		if outs, err = p.emit(c, params); err != nil {
			return err
		}
	}
	m := runtime.EagerModule(block, outs)
	exe, err := runtime.CompileEager(ctx, d.b, m, "eager "+p.op.name)
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	p.exe = exe
	return nil
}

// paramType is the type of module argument k.
func (p *plan) paramType(k int) stablehlo.Type {
	for v, i := range p.argIx {
		if i == k {
			return v.Type
		}
	}
	return nil
}

// emit lowers the call again into c with params as the module arguments
// and returns the module results (a fused block replays its ops so).
func (p *plan) emit(c *aten.LowerCtx, params []*stablehlo.Value) ([]*stablehlo.Value, error) {
	kw := make(map[string]aten.Value, len(p.kw))
	for k, v := range p.kw {
		kw[k] = p.substitute(v, params)
	}
	bound, err := aten.Bind(p.entry.ParsedSchema(), nil, kw)
	if err != nil {
		return nil, err
	}
	res, err := p.entry.Call(c, bound)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.op.name, err)
	}
	outs := make([]*stablehlo.Value, len(p.post))
	for k, po := range p.post {
		if po.res >= len(res) {
			return nil, fmt.Errorf("%s: result %d missing", p.op.name, po.res)
		}
		r := res[po.res]
		if po.item >= 0 {
			if po.item >= len(r.List) {
				return nil, fmt.Errorf("%s: result %d item %d missing", p.op.name, po.res, po.item)
			}
			r = r.List[po.item]
		}
		if r.T == nil {
			return nil, fmt.Errorf("%s: result %d is not a tensor", p.op.name, po.res)
		}
		v := r.T
		if po.conv != dtype.Invalid {
			v = c.Convert(v, po.conv)
		}
		outs[k] = v
	}
	return outs, c.Err()
}

// substitute replaces the placeholders of module arguments in v.
func (p *plan) substitute(v aten.Value, params []*stablehlo.Value) aten.Value {
	switch v.Kind {
	case aten.KTensor:
		if k, ok := p.argIx[v.T]; ok {
			return aten.TensorValue(params[k])
		}
	case aten.KList:
		items := make([]aten.Value, len(v.List))
		for i, e := range v.List {
			items[i] = p.substitute(e, params)
		}
		return aten.ListValue(items...)
	}
	return v
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
