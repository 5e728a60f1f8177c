package native

import (
	"fmt"
	"io"
	"sync"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// The interpreter runs a module in two steps. Planning (this file, done
// once per function and cached) numbers every SSA value of a function with
// a slot and resolves each op's kernel; evaluation (interp_eval.go) walks
// the planned blocks, reading operands from and writing results to a
// frame's slots. A later performance pass can replace evaluation with an
// executor that owns buffers per plan without changing the kernel
// contract.

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

	// recycle is set when runs may recycle buffers (see recyclable);
	// arenas keeps the buffers between runs.
	recycle bool
	arenas  arenaPool
}

func newProgram(m *stablehlo.Module) (*program, error) {
	if m == nil {
		return nil, fmt.Errorf("native: nil module")
	}
	p := &program{mod: m, funcs: map[string]*stablehlo.Func{}, plans: map[*stablehlo.Func]*funcPlan{}, probes: map[string][]Value{}, recycle: recyclable(m)}
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
	// exec is the execution plan of the body (nil: op by op).
	exec *execPlan
	// args holds the body's block arguments (isArg)
	args map[*stablehlo.Value]bool
	// frames pools the frames of its calls (getFrame)
	frames sync.Pool
}

// isArg reports whether v is an argument of the function (of its body,
// not of a region in it).
func (fp *funcPlan) isArg(v *stablehlo.Value) bool { return fp.args[v] }

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
	fp.args = map[*stablehlo.Value]bool{}
	for _, a := range f.Body.Entry().Args {
		fp.args[a] = true
	}
	if !noFusion {
		fp.exec = buildExec(body, slots)
	}
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
	folded, unread := foldDotTransposes(b)
	for k, op := range b.Ops {
		if unread[op] {
			continue // a transpose its products read in place (fast_dot_fold.go)
		}
		if f := folded[op]; f != nil {
			op = f
		}
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
