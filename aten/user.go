package aten

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Users' ops lowered by their own StableHLO (torchtpu.register_stablehlo):
// for each call, at each new signature, the entry asks ModuleFunc for a
// module (text, e.g. from jax.export) whose public main takes the call's
// tensors in order and returns the op's tensor results; main's body, and
// the bodies of the functions it calls, are inlined where the op is. The
// program then checks the results against the op's record (the fake
// kernel's dtypes and shapes), as for every op, naming it.

// ModuleFunc returns the StableHLO module for one call of a user op: call
// is JSON, one item per schema argument: {"dtype": "float32",
// "shape": [4, 8]} for a tensor, a list of those for a Tensor[], the value
// for anything else.
type ModuleFunc func(op string, call []byte) (string, error)

// RegisterUser adds (or replaces) the entry of a user op lowered by a
// StableHLO module. A built-in entry cannot be replaced.
func RegisterUser(name, schema string, f ModuleFunc) error {
	name = CanonicalName(name)
	s, err := ParseSchema(schema)
	if err != nil {
		return fmt.Errorf("%s: schema: %w", name, err)
	}
	e := &Entry{Name: name, Kind: Lowered, User: true, schema: parsedSchema(s), File: "user"}
	e.Lower = func(c *LowerCtx, a *Args) ([]Value, error) { return lowerUser(c, a, e, f) }
	regMu.Lock()
	defer regMu.Unlock()
	if old, ok := registry[name]; ok && !old.User {
		return fmt.Errorf("%s is torchtpu's own op; its lowering cannot be replaced", name)
	}
	registry[name] = e
	userGen.Add(1)
	return nil
}

var userGen atomic.Uint64

// UserGeneration counts RegisterUser calls: a caller that found an op
// missing looks it up again when the count moved.
func UserGeneration() uint64 { return userGen.Load() }

type userTensor struct {
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

func lowerUser(c *LowerCtx, a *Args, e *Entry, f ModuleFunc) ([]Value, error) {
	var operands []*stablehlo.Value
	call := make([]any, len(a.Values))
	for i, v := range a.Values {
		switch {
		case v.Kind == KTensor && v.T != nil:
			operands = append(operands, v.T)
			call[i] = userTensor{DType: c.DType(v.T).Torch(), Shape: c.Shape(v.T)}
		case v.Kind == KList:
			items := make([]any, len(v.List))
			for j, it := range v.List {
				if it.Kind == KTensor && it.T != nil {
					operands = append(operands, it.T)
					items[j] = userTensor{DType: c.DType(it.T).Torch(), Shape: c.Shape(it.T)}
				} else {
					items[j] = scalarJSON(it)
				}
			}
			call[i] = items
		default:
			call[i] = scalarJSON(v)
		}
	}
	js, err := json.Marshal(call)
	if err != nil {
		return nil, err
	}
	text, err := f(e.Name, js)
	if err != nil {
		return nil, fmt.Errorf("the StableHLO lowering of %s: %w", e.Name, err)
	}
	m, err := stablehlo.ParseModule(e.Name, []byte(text))
	if err != nil {
		return nil, fmt.Errorf("the StableHLO lowering of %s does not parse: %w", e.Name, err)
	}
	main := m.Func("main")
	if main == nil {
		for _, fn := range m.Funcs {
			if fn.Visibility == "" || fn.Visibility == "public" {
				main = fn
				break
			}
		}
	}
	if main == nil || main.Body == nil {
		return nil, fmt.Errorf("the StableHLO lowering of %s has no public main function", e.Name)
	}
	if len(main.Type.Inputs) != len(operands) {
		return nil, fmt.Errorf("the StableHLO lowering of %s: main takes %d arguments, the call has %d tensors",
			e.Name, len(main.Type.Inputs), len(operands))
	}
	for i, t := range main.Type.Inputs {
		if t.String() != c.Type(operands[i]).String() {
			return nil, fmt.Errorf("the StableHLO lowering of %s: main's argument %d is %s, the call passes %s",
				e.Name, i, t, c.Type(operands[i]))
		}
	}
	results, err := inline(c, m, main, operands, 0)
	if err != nil {
		return nil, fmt.Errorf("the StableHLO lowering of %s: %w", e.Name, err)
	}
	s, _ := e.parsed()
	if n := s.NumResults(); len(results) != n {
		return nil, fmt.Errorf("the StableHLO lowering of %s returns %d values, the op returns %d", e.Name, len(results), n)
	}
	out := make([]Value, len(results))
	for i, r := range results {
		out[i] = TensorValue(r)
	}
	return out, nil
}

func scalarJSON(v Value) any {
	switch v.Kind {
	case KNone:
		return nil
	case KInt:
		return v.I
	case KFloat:
		return v.F
	case KBool:
		return v.B
	case KStr:
		return v.S
	case KDType:
		return v.DType.Torch()
	}
	return v.String()
}

// inline copies fn's body into c's block with its arguments bound to args
// and returns the values of its func.return; func.call ops are inlined in
// turn (depth bounds recursion).
func inline(c *LowerCtx, m *stablehlo.Module, fn *stablehlo.Func, args []*stablehlo.Value, depth int) ([]*stablehlo.Value, error) {
	if depth > 32 {
		return nil, fmt.Errorf("func.call nests deeper than 32 (recursion through @%s?)", fn.Name)
	}
	body := fn.Body.Entry()
	if body == nil || len(body.Args) != len(args) {
		return nil, fmt.Errorf("@%s: bad body", fn.Name)
	}
	vals := map[*stablehlo.Value]*stablehlo.Value{}
	for i, a := range body.Args {
		vals[a] = args[i]
	}
	for _, op := range body.Ops {
		switch op.Name {
		case "func.return":
			out := make([]*stablehlo.Value, len(op.Operands))
			for i, v := range op.Operands {
				out[i] = vals[v]
			}
			return out, nil
		case "func.call":
			callee, _ := op.Symbol("callee")
			f := m.Func(callee)
			if f == nil || f.Body == nil {
				return nil, fmt.Errorf("func.call of @%s, which the module does not define", callee)
			}
			in := make([]*stablehlo.Value, len(op.Operands))
			for i, v := range op.Operands {
				in[i] = vals[v]
			}
			res, err := inline(c, m, f, in, depth+1)
			if err != nil {
				return nil, err
			}
			if len(res) != len(op.Results) {
				return nil, fmt.Errorf("@%s returns %d values, its call expects %d", callee, len(res), len(op.Results))
			}
			for i, r := range op.Results {
				vals[r] = res[i]
			}
		default:
			c.block.Ops = append(c.block.Ops, cloneOp(op, vals, c.Loc))
		}
	}
	return nil, fmt.Errorf("@%s has no func.return", fn.Name)
}

// cloneOp copies op (and its regions) with operands remapped through vals,
// recording its new results there.
func cloneOp(op *stablehlo.Op, vals map[*stablehlo.Value]*stablehlo.Value, loc stablehlo.Loc) *stablehlo.Op {
	operands := make([]*stablehlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		if nv, ok := vals[v]; ok {
			operands[i] = nv
		} else {
			operands[i] = v
		}
	}
	types := make([]stablehlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	regions := make([]*stablehlo.Region, len(op.Regions))
	for i, r := range op.Regions {
		nr := &stablehlo.Region{}
		for _, b := range r.Blocks {
			nb := &stablehlo.Block{}
			for j, a := range b.Args {
				na := &stablehlo.Value{Type: a.Type, Index: j}
				vals[a] = na
				nb.Args = append(nb.Args, na)
			}
			for _, sub := range b.Ops {
				nb.Ops = append(nb.Ops, cloneOp(sub, vals, loc))
			}
			nr.Blocks = append(nr.Blocks, nb)
		}
		regions[i] = nr
	}
	n := stablehlo.NewOp(op.Name, operands, types, op.Attrs, regions...)
	n.Loc = loc
	for i, r := range op.Results {
		vals[r] = n.Results[i]
	}
	return n
}
