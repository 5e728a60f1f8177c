package runtime

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/sym"
)

// BucketPolicy pads symbolic dims up to bucket sizes, so that calls with
// nearby sizes share one specialisation: Pow2 rounds up to a power of
// two, Sizes to the smallest listed size that fits (a size above every
// bucket runs at its exact value). A bucket is clamped to the symbol's
// exported maximum.
type BucketPolicy struct {
	Pow2  bool
	Sizes []int64
	// Exact asks for exact shapes (no padding), overriding a device's
	// default policy.
	Exact bool
}

// XLADefaultBuckets is the policy of a program on a PJRT device (xla-cpu,
// tpu, cuda) when none is set: powers of two. There a compile takes
// seconds (on a TPU) and every new size of a symbolic dim is one, so an
// exact-shape policy costs a compile per size; pow2 bounds the compiles
// of each padded symbol to log2(max/min)+1 and the padded work to under
// twice the exact work. The native CPU backend compiles in milliseconds
// and keeps exact shapes. Where the padding analysis refuses a program,
// it runs at exact shapes and the reason is in the metrics and the log.
var XLADefaultBuckets = BucketPolicy{Pow2: true}

// buckets is the policy in effect: the options' own, else the device's
// default; nil means exact shapes.
func (p *Program) buckets(st *rtState) *BucketPolicy {
	b := st.opts.Buckets
	if b == nil && p.Backend != nil && p.Backend.Name() != "cpu" {
		b = &XLADefaultBuckets
	}
	if b == nil || b.Exact {
		return nil
	}
	return b
}

// Bucket returns the padded size for v.
func (b *BucketPolicy) Bucket(v int64) int64 {
	if b.Pow2 {
		p := int64(1)
		for p < v {
			p <<= 1
		}
		return p
	}
	best := int64(-1)
	for _, s := range b.Sizes {
		if s >= v && (best < 0 || s < best) {
			best = s
		}
	}
	if best < 0 {
		return v
	}
	return best
}

// BucketReport says whether bucketing is used for a program, and why not.
type BucketReport struct {
	Enabled bool     `json:"enabled"`
	Symbols []string `json:"symbols,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

type bucketPlan struct {
	ok      bool
	symbols []string // padded symbols, sorted
	a       *padAnalysis
}

// bucketPlan analyses the program once: the symbols that are a whole
// dim of a user input are tried together, then each alone.
func (p *Program) bucketPlan(st *rtState) *bucketPlan {
	if st.dyn.bucket != nil {
		return st.dyn.bucket
	}
	bp := &bucketPlan{}
	st.dyn.bucket = bp
	cands := map[string]bool{}
	for _, name := range p.userTensorInputs() {
		if m := p.Graph.Tensor(name); m != nil {
			for _, d := range m.Shape {
				if !d.IsStatic() && d.Expr.Op == sym.OpSymbol {
					cands[d.Expr.Name] = true
				}
			}
		}
	}
	var reasons []string
	try := func(set map[string]bool) bool {
		a, err := analyzePadding(p.Graph, set)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("padding %s: %v", strings.Join(sortedSet(set), ", "), err))
			return false
		}
		bp.ok, bp.a, bp.symbols = true, a, sortedSet(set)
		return true
	}
	switch {
	case len(cands) == 0:
		reasons = append(reasons, "no input has a symbolic dim")
	case try(cands):
	default:
		for _, s := range sortedSet(cands) {
			if len(cands) > 1 && try(map[string]bool{s: true}) {
				break
			}
		}
	}
	rep := &BucketReport{Enabled: bp.ok, Symbols: bp.symbols}
	if !bp.ok {
		rep.Reason = strings.Join(reasons, "; ")
		st.logf("torchtpu: bucketing off, exact shapes: %s\n", rep.Reason)
	} else if st.opts.Explain {
		st.logf("torchtpu: bucketing %s\n", strings.Join(bp.symbols, ", "))
	}
	st.metrics.mu.Lock()
	st.metrics.Bucketing = rep
	st.metrics.mu.Unlock()
	return bp
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// runBucketed pads the inputs to their buckets, runs (through the
// per-signature plan cache: the actual sizes are arguments, so one
// executable serves a whole bucket) and slices the outputs back.
func (p *Program) runBucketed(ctx context.Context, st *rtState, bp *bucketPlan, inputs []*literal.Literal, io *deviceIO) ([]*literal.Literal, *Stats, error) {
	for i, in := range inputs { // padding is done on the host
		if err := io.host(in); err != nil {
			return nil, nil, fmt.Errorf("input %d: %w", i, err)
		}
	}
	names := p.userTensorInputs()
	actual, bucket := map[string]int64{}, map[string]int64{}
	padded := make([]*literal.Literal, len(inputs))
	for i, in := range inputs {
		m := p.Graph.Tensor(names[i])
		shape := append([]int64{}, in.Shape...)
		if m != nil {
			for d, dim := range m.Shape {
				if dim.IsStatic() || dim.Expr.Op != sym.OpSymbol || !bp.a.padded[dim.Expr.Name] {
					continue
				}
				s := dim.Expr.Name
				b := p.buckets(st).Bucket(in.Shape[d])
				if rg, ok := p.Graph.Ranges[s]; ok && rg.Max != nil && b > *rg.Max {
					b = *rg.Max
				}
				actual[s], bucket[s], shape[d] = in.Shape[d], b, b
			}
		}
		var err error
		if padded[i], err = resize(in, shape); err != nil {
			return nil, nil, fmt.Errorf("input %d: %w", i, err)
		}
	}
	args := append([]*literal.Literal{}, padded...)
	lens := map[string]*literal.Literal{}
	for _, s := range bp.symbols {
		l, _ := literal.New(dtype.I64, nil)
		l.SetInt64(0, actual[s])
		lens[s] = l
		args = append(args, l)
	}
	sig := "bucket:" + signature(padded)
	var notes []string
	for _, s := range bp.symbols {
		notes = append(notes, fmt.Sprintf("%s = %d", s, actual[s]))
	}
	st.dyn.note = " (bucket; actual " + strings.Join(notes, ", ") + ")"
	p.explain(st, padded, sig)
	st.dyn.note = ""
	var outs []*literal.Literal
	var stats *Stats
	var err error
	if pl := p.cache.get(sig); pl != nil && !p.NoCache {
		outs, stats, err = p.runPlan(ctx, pl, args, io)
	} else {
		outs, stats, err = p.lowerBucketed(ctx, bp, padded, args, lens, sig, io)
	}
	if err != nil {
		return nil, stats, err
	}
	for i, o := range outs {
		if o == nil || i >= len(p.Graph.Outputs) {
			continue
		}
		if err := io.host(o); err != nil { // sliced on the host
			return nil, stats, fmt.Errorf("output %d: %w", i, err)
		}
		m := p.Graph.Tensor(p.Graph.Outputs[i].Name)
		if m == nil {
			continue
		}
		want, err := m.EvalShape(actual)
		if err != nil {
			return nil, stats, fmt.Errorf("output %d: %w", i, err)
		}
		if outs[i], err = resize(o, want); err != nil {
			return nil, stats, fmt.Errorf("output %d: %w", i, err)
		}
	}
	return outs, stats, nil
}

// lowerBucketed lowers the padded program, masking attention over padded
// keys with the actual lengths (segment arguments), and caches the plan.
func (p *Program) lowerBucketed(ctx context.Context, bp *bucketPlan, padded, args []*literal.Literal, lens map[string]*literal.Literal, sig string, io *deviceIO) ([]*literal.Literal, *Stats, error) {
	r, err := newRun(ctx, p, padded, io)
	if err != nil {
		return nil, nil, err
	}
	r.inputs = args // the lengths trace back to inputs in the plan
	return p.lowerAndRun(ctx, r, sig, func(i int, n *fx.Node) error {
		if km, ok := bp.a.masks[n.Name]; ok {
			return r.maskedAttention(n, km, lens)
		}
		if spec, ok := bp.a.fills[n.Name]; ok {
			return r.maskedNode(i, n, spec, lens)
		}
		if ts, ok := bp.a.tails[n.Name]; ok {
			return r.tailSlice(i, n, ts, lens)
		}
		if ct, ok := bp.a.catTails[n.Name]; ok {
			return r.catTail(i, n, ct, lens)
		}
		return r.node(i, n)
	})
}

// resize copies l into a zero tensor of shape (padding or slicing each
// dim at its end).
func resize(l *literal.Literal, shape []int64) (*literal.Literal, error) {
	if slices.Equal(l.Shape, shape) {
		return l, nil
	}
	out, err := literal.New(l.DType, shape)
	if err != nil {
		return nil, err
	}
	r := len(shape)
	if r == 0 {
		return out, nil
	}
	box := make([]int64, r)
	for i := range box {
		box[i] = min(shape[i], l.Shape[i])
		if box[i] == 0 {
			return out, nil
		}
	}
	es := int64(l.DType.Size())
	row := box[r-1] * es
	idx := make([]int64, r-1)
	for {
		var so, do int64
		for i := 0; i < r-1; i++ {
			so = so*l.Shape[i] + idx[i]
			do = do*shape[i] + idx[i]
		}
		so, do = so*l.Shape[r-1]*es, do*shape[r-1]*es
		copy(out.Data[do:do+row], l.Data[so:so+row])
		i := r - 2
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < box[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out, nil
		}
	}
}
