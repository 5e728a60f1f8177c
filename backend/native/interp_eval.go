package native

import (
	"context"
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Evaluation of planned functions: processes, frames (the Env of kernels)
// and the op loop.

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
	prof      *Profile       // WithProfile's, nil if none
	arena     *arena         // buffers to recycle (nil: none)
}

// frame is the activation of one function: its slots. It implements Env
// for the kernels of the function's ops. CallRegion reuses the frame's
// slots, so it must not be called concurrently on one frame.
type frame struct {
	proc  *process
	fn    *funcPlan
	slots []Value
	steps int
	// live lists the slots of a planned block holding values, livePos
	// their positions in it plus one (runPlan).
	live    []int
	livePos []int32
	// pm is the entry frame's buffer of its memory plan (nil: none);
	// stepOuts the planned slots the running step defines, claimed the
	// ones handed out (exec_memplan.go)
	pm       *plannedMem
	stepOuts []int
	claimed  uint64
	// kept between the runs of a pooled frame (funcPlan.frames): the
	// spans runPlan must not recycle, and the alias record
	persist spanSet
	al      aliases
	// consts collects the constant steps' bytes in a run that builds
	// execPlan.consts (nil otherwise), nconst counts those steps
	consts *spanSet
	nconst int
	in     []Value // a step's operands (runPlan), reused
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
	fr := fp.getFrame(pr)
	defer fp.putFrame(fr)
	var res []Value
	if fp.exec != nil {
		res, err = fr.runPlan(fp.exec, args)
	} else {
		res, err = fr.evalBlock(fp.body, args)
	}
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

// getFrame returns a frame for a call of fp by pr: a pooled one, its
// scratch kept from earlier calls.
func (fp *funcPlan) getFrame(pr *process) *frame {
	fr, _ := fp.frames.Get().(*frame)
	if fr == nil || len(fr.slots) != fp.nslots {
		fr = &frame{slots: make([]Value, fp.nslots)}
	}
	fr.proc, fr.fn, fr.steps = pr, fp, 0
	return fr
}

// putFrame gives fr back once its call has returned: its values go (the
// results were copied out of its slots), its scratch stays.
func (fp *funcPlan) putFrame(fr *frame) {
	clear(fr.slots)
	fr.persist.reset()
	fr.proc, fr.pm, fr.stepOuts = nil, nil, nil
	fp.frames.Put(fr)
}
