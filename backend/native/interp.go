package native

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The interpreter runs a module in two steps. Planning (plan.go-like code
// below, done once per function and cached) numbers every SSA value of a
// function with a slot and resolves each op's kernel; evaluation walks the
// planned blocks, reading operands from and writing results to a frame's
// slots. A later performance pass can replace evaluation with an executor
// that owns buffers per plan without changing the kernel contract.

// program is a module prepared for evaluation. It is safe for concurrent
// use: plans are built once under mu.
type program struct {
	mod   *stablehlo.Module
	funcs map[string]*stablehlo.Func

	mu    sync.Mutex
	plans map[*stablehlo.Func]*funcPlan

	// out receives interpreter.print output (nil: discarded).
	out io.Writer
	// probes records interpreter.probe values by probe id, in order.
	probeMu sync.Mutex
	probes  map[string][]Value
}

func newProgram(m *stablehlo.Module) (*program, error) {
	if m == nil {
		return nil, fmt.Errorf("native: nil module")
	}
	p := &program{mod: m, funcs: map[string]*stablehlo.Func{}, plans: map[*stablehlo.Func]*funcPlan{}, probes: map[string][]Value{}}
	for _, f := range m.Funcs {
		if _, dup := p.funcs[f.Name]; dup {
			return nil, fmt.Errorf("native: function @%s defined twice (%s)", f.Name, f.Loc)
		}
		p.funcs[f.Name] = f
	}
	return p, nil
}

// funcPlan is a function with its values numbered.
type funcPlan struct {
	f       *stablehlo.Func
	nslots  int
	body    *blockPlan
	regions map[*stablehlo.Region]*blockPlan
}

// blockPlan is a planned single block.
type blockPlan struct {
	args []int
	ops  []opPlan
	// ret holds the terminator's operand slots; hasRet is false for a block
	// without a terminator (then it returns nothing).
	ret    []int
	retOp  *stablehlo.Op
	hasRet bool
}

// opPlan is one op with its operand and result slots and its kernel.
type opPlan struct {
	op     *stablehlo.Op
	in     []int
	out    []int
	kernel Kernel
	quant  bool // dispatch through evalQuantized
}

// isTerminator reports whether an op ends a block.
func isTerminator(name string) bool {
	switch name {
	case "func.return", "stablehlo.return", "return":
		return true
	}
	return false
}

// plan returns the plan of f, building it on first use.
func (p *program) plan(f *stablehlo.Func) (*funcPlan, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fp, ok := p.plans[f]; ok {
		return fp, nil
	}
	if f.Body == nil || f.Body.Entry() == nil {
		return nil, fmt.Errorf("function @%s (%s) has no body", f.Name, f.Loc)
	}
	fp := &funcPlan{f: f, regions: map[*stablehlo.Region]*blockPlan{}}
	slots := map[*stablehlo.Value]int{}
	body, err := fp.planRegion(f.Body, slots)
	if err != nil {
		return nil, fmt.Errorf("function @%s: %w", f.Name, err)
	}
	fp.body = body
	fp.nslots = len(slots)
	p.plans[f] = fp
	return fp, nil
}

func (fp *funcPlan) planRegion(r *stablehlo.Region, slots map[*stablehlo.Value]int) (*blockPlan, error) {
	if len(r.Blocks) != 1 {
		return nil, fmt.Errorf("region with %d blocks (want 1)", len(r.Blocks))
	}
	b := r.Blocks[0]
	bp := &blockPlan{}
	def := func(v *stablehlo.Value) int {
		if i, ok := slots[v]; ok {
			return i
		}
		i := len(slots)
		slots[v] = i
		return i
	}
	use := func(op *stablehlo.Op, j int, v *stablehlo.Value) (int, error) {
		if v == nil {
			return 0, fmt.Errorf("%s (%s): operand #%d is nil", op.Name, op.Loc, j)
		}
		i, ok := slots[v]
		if !ok {
			return 0, fmt.Errorf("%s (%s): operand #%d is used before it is defined", op.Name, op.Loc, j)
		}
		return i, nil
	}
	for _, a := range b.Args {
		bp.args = append(bp.args, def(a))
	}
	for k, op := range b.Ops {
		in := make([]int, len(op.Operands))
		for j, v := range op.Operands {
			i, err := use(op, j, v)
			if err != nil {
				return nil, err
			}
			in[j] = i
		}
		if isTerminator(op.Name) {
			if k != len(b.Ops)-1 {
				return nil, fmt.Errorf("%s (%s): terminator is not the last op of its block", op.Name, op.Loc)
			}
			bp.ret, bp.retOp, bp.hasRet = in, op, true
			break
		}
		// Nested regions may read values defined before the op (implicit
		// capture) and are numbered in the same frame.
		for _, sub := range op.Regions {
			sp, err := fp.planRegion(sub, slots)
			if err != nil {
				return nil, fmt.Errorf("in region of %s (%s): %w", op.Name, op.Loc, err)
			}
			fp.regions[sub] = sp
		}
		k, ok := kernels[op.Name]
		if !ok {
			return nil, fmt.Errorf("%s (%s): no kernel for this op in the native backend", op.Name, op.Loc)
		}
		out := make([]int, len(op.Results))
		for j, v := range op.Results {
			out[j] = def(v)
		}
		bp.ops = append(bp.ops, opPlan{op: op, in: in, out: out, kernel: k, quant: needsQuant(op)})
	}
	return bp, nil
}

// process is one member of the replica × partition grid (a single process
// for an ordinary run).
type process struct {
	prog      *program
	ctx       context.Context
	grid      *grid
	replica   int
	partition int
	seq       map[string]int // collective call counts, by rendezvous key
	depth     int            // nesting of function calls
}

// frame is the activation of one function: its slots. It implements Env
// for the kernels of the function's ops. CallRegion reuses the frame's
// slots, so it must not be called concurrently on one frame.
type frame struct {
	proc  *process
	fn    *funcPlan
	slots []Value
	steps int
}

func (fr *frame) Context() context.Context { return fr.proc.ctx }
func (fr *frame) Replica() int             { return fr.proc.replica }
func (fr *frame) Partition() int           { return fr.proc.partition }
func (fr *frame) NumReplicas() int         { return fr.proc.grid.replicas }
func (fr *frame) NumPartitions() int       { return fr.proc.grid.partitions }

func (fr *frame) Collective(op *stablehlo.Op, key string, group []int, v Value) ([]Value, error) {
	return fr.proc.grid.exchange(fr.proc, op, key, group, v)
}

// CallRegion evaluates a region of an op of this function.
func (fr *frame) CallRegion(r *stablehlo.Region, args []Value) ([]Value, error) {
	bp, ok := fr.fn.regions[r]
	if !ok || r == nil {
		return nil, fmt.Errorf("CallRegion: the region is not one of the running function's")
	}
	return fr.evalBlock(bp, args)
}

// CallFunc evaluates a function of the module in a new frame.
func (fr *frame) CallFunc(name string, args []Value) ([]Value, error) {
	return fr.proc.callFunc(name, args)
}

// maxCallDepth bounds recursion through func.call.
const maxCallDepth = 1000

func (pr *process) callFunc(name string, args []Value) ([]Value, error) {
	f, ok := pr.prog.funcs[name]
	if !ok {
		return nil, fmt.Errorf("call of unknown function @%s", name)
	}
	fp, err := pr.prog.plan(f)
	if err != nil {
		return nil, err
	}
	if len(args) != len(fp.body.args) {
		return nil, fmt.Errorf("call of @%s with %d arguments, want %d", name, len(args), len(fp.body.args))
	}
	if pr.depth >= maxCallDepth {
		return nil, fmt.Errorf("call of @%s: more than %d nested calls", name, maxCallDepth)
	}
	pr.depth++
	defer func() { pr.depth-- }()
	fr := &frame{proc: pr, fn: fp, slots: make([]Value, fp.nslots)}
	res, err := fr.evalBlock(fp.body, args)
	if err != nil {
		return nil, fmt.Errorf("in @%s: %w", name, err)
	}
	return res, nil
}

// evalBlock binds args, runs the ops and returns the terminator's operands.
func (fr *frame) evalBlock(bp *blockPlan, args []Value) ([]Value, error) {
	if len(args) != len(bp.args) {
		return nil, fmt.Errorf("block called with %d arguments, want %d", len(args), len(bp.args))
	}
	for i, s := range bp.args {
		fr.slots[s] = args[i]
	}
	ctx := fr.proc.ctx
	for i := range bp.ops {
		pl := &bp.ops[i]
		fr.steps++
		if fr.steps&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s (%s): %w", pl.op.Name, pl.op.Loc, err)
			}
		}
		in := make([]Value, len(pl.in))
		for j, s := range pl.in {
			in[j] = fr.slots[s]
		}
		var out []Value
		var err error
		if pl.quant {
			out, err = evalQuantized(fr, pl.op, in, pl.kernel)
		} else {
			out, err = pl.kernel(fr, pl.op, in)
		}
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", pl.op.Name, pl.op.Loc, err)
		}
		if err := checkResults(pl.op, out); err != nil {
			return nil, err
		}
		for j, s := range pl.out {
			fr.slots[s] = out[j]
		}
	}
	if !bp.hasRet {
		return nil, nil
	}
	res := make([]Value, len(bp.ret))
	for i, s := range bp.ret {
		res[i] = fr.slots[s]
	}
	return res, nil
}

// checkResults verifies that a kernel returned one value per result and
// that tensors match the static result types (a kernel bug otherwise).
func checkResults(op *stablehlo.Op, out []Value) error {
	if len(out) != len(op.Results) {
		return fmt.Errorf("%s (%s): kernel returned %d values for %d results", op.Name, op.Loc, len(out), len(op.Results))
	}
	for i, v := range out {
		t := stablehlo.AsTensor(op.Results[i].Type)
		if t == nil {
			continue
		}
		l, ok := v.(*literal.Literal)
		if !ok {
			return fmt.Errorf("%s (%s): kernel returned %T for tensor result #%d", op.Name, op.Loc, v, i)
		}
		if l.DType != t.Elem.DType {
			return fmt.Errorf("%s (%s): result #%d has element type %v, want %v", op.Name, op.Loc, i, l.DType, t.Elem.DType)
		}
		if len(l.Shape) != len(t.Shape) {
			return fmt.Errorf("%s (%s): result #%d has shape %v, want %v", op.Name, op.Loc, i, l.Shape, t.Shape)
		}
		for d, n := range t.Shape {
			if n != stablehlo.Dynamic && l.Shape[d] != n {
				return fmt.Errorf("%s (%s): result #%d has shape %v, want %v", op.Name, op.Loc, i, l.Shape, t.Shape)
			}
		}
	}
	return nil
}

// movesData lists ops that only move or select stored elements: on
// quantized types they work on the storage values directly.
var movesData = map[string]bool{
	"stablehlo.constant": true, "stablehlo.uniform_quantize": true, "stablehlo.uniform_dequantize": true,
	"stablehlo.broadcast_in_dim": true, "stablehlo.reshape": true, "stablehlo.transpose": true,
	"stablehlo.slice": true, "stablehlo.concatenate": true, "stablehlo.reverse": true,
	"stablehlo.dynamic_slice": true, "stablehlo.dynamic_update_slice": true, "stablehlo.gather": true,
	"stablehlo.get_tuple_element": true, "stablehlo.tuple": true, "stablehlo.optimization_barrier": true,
	"stablehlo.while": true, "stablehlo.if": true, "stablehlo.case": true, "func.call": true,
	"stablehlo.dynamic_reshape": true, "stablehlo.dynamic_broadcast_in_dim": true,
	"stablehlo.get_dimension_size": true, "stablehlo.custom_call": true, "stablehlo.composite": true,
	"stablehlo.all_gather": true, "stablehlo.all_to_all": true, "stablehlo.collective_permute": true,
	"stablehlo.collective_broadcast": true, "stablehlo.send": true, "stablehlo.recv": true,
	"stablehlo.infeed": true, "stablehlo.outfeed": true, "stablehlo.bitcast_convert": true,
	"interpreter.run_parallel": true, "interpreter.probe": true, "interpreter.print": true,
}

// needsQuant reports whether op computes on quantized element types.
func needsQuant(op *stablehlo.Op) bool {
	if movesData[op.Name] || len(op.Name) > 6 && op.Name[:6] == "check." {
		return false
	}
	for _, v := range op.Operands {
		if v != nil && isQuantType(v.Type) {
			return true
		}
	}
	for _, v := range op.Results {
		if isQuantType(v.Type) {
			return true
		}
	}
	return false
}

func isQuantType(t stablehlo.Type) bool {
	switch t := t.(type) {
	case *stablehlo.TensorType:
		return t.Elem.IsQuantized()
	case stablehlo.ElemType:
		return t.IsQuantized()
	case *stablehlo.TupleType:
		for _, e := range t.Elems {
			if isQuantType(e) {
				return true
			}
		}
	}
	return false
}
