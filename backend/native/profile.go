package native

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Profile collects the time of every step of the native backend's runs
// (an op, a fused group, a convolution with its epilogue) whose context
// carries it (WithProfile), in the entry function (steps of nested calls
// count in their caller's step). It is safe for concurrent runs. Without
// a Profile in the context a run pays one nil check per step.
type Profile struct {
	// Spans, when set before the runs, also keeps each step's span
	// (up to MaxSpans) for a trace.
	Spans    bool
	MaxSpans int
	// ThreadCPU, when set before the runs, times the steps in CPU time of
	// the thread running them (CLOCK_THREAD_CPUTIME_ID) rather than wall
	// time: on a loaded machine, what each step costs while it runs. Only
	// the calling thread's share counts, so it reads true with one thread
	// (GOMAXPROCS 1) and a run locked to its thread (runtime.LockOSThread).
	ThreadCPU bool

	mu    sync.Mutex
	steps map[*execStep]*stepTime
	spans []ProfileSpan
	runs  int
}

type stepTime struct {
	d     time.Duration
	count int
	// loops counts the parallel loops the step ran (split over two
	// goroutines or more); helpers is the time the pool's helpers spent
	// in them, besides the running thread's d
	loops   int64
	helpers time.Duration
	// samples holds the first maxSamples durations (for the median)
	samples []time.Duration
}

const maxSamples = 1 << 12

// ProfileSpan is one step of one run.
type ProfileSpan struct {
	Name  string // the step's kind, as in ProfileEntry.Kind
	Desc  string // the step, as in ProfileEntry.Name
	Start time.Time
	Dur   time.Duration
}

// ProfileEntry is the time of one kind of step, or of one step.
type ProfileEntry struct {
	// Kind is the op without its dialect ("dot_general"), "fusion" for a
	// fused group, "convolution+epilogue" or "dot_general+epilogue",
	// "convolution+pointwise" for a depthwise and a pointwise convolution
	// run together, "convolution+dw+pointwise" for those and the pointwise
	// convolution before.
	Kind string
	// Name describes the step (for a group: its ops, result type and
	// source location); empty in the per-kind totals.
	Name  string
	Total time.Duration
	Count int
	// Median is the median of the step's times times its count, over the
	// steps of the kind: on a loaded machine, what its runs take without
	// the ones another process stretched.
	Median time.Duration
	// Loops is the parallel loops (split over two threads or more) the
	// steps ran; Serial the part of Total in steps that ran none (one
	// thread busy, the others idle); Helpers the time the pool's helper
	// threads spent in the steps' loops, besides Total.
	Loops   int64
	Serial  time.Duration
	Helpers time.Duration
}

type profileKey struct{}

// WithProfile returns ctx carrying p: the native backend's runs under it
// record their steps into p.
func WithProfile(ctx context.Context, p *Profile) context.Context {
	return context.WithValue(ctx, profileKey{}, p)
}

func profileOf(ctx context.Context) *Profile {
	p, _ := ctx.Value(profileKey{}).(*Profile)
	return p
}

// stamp returns the time a step starts: wall time, or the thread's CPU
// time (ThreadCPU) as a duration since an arbitrary origin.
func (p *Profile) stamp() (time.Time, time.Duration) {
	if p.ThreadCPU {
		return time.Time{}, threadCPUTime()
	}
	return time.Now(), 0
}

// since returns the time since a stamp.
func (p *Profile) since(t time.Time, cpu time.Duration) time.Duration {
	if p.ThreadCPU {
		return threadCPUTime() - cpu
	}
	return time.Since(t)
}

func (p *Profile) record(st *execStep, start time.Time, d time.Duration, loops int64, helpers time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.steps == nil {
		p.steps = map[*execStep]*stepTime{}
	}
	t := p.steps[st]
	if t == nil {
		t = &stepTime{}
		p.steps[st] = t
	}
	t.d += d
	t.count++
	t.loops += loops
	t.helpers += helpers
	if len(t.samples) < maxSamples {
		t.samples = append(t.samples, d)
	}
	if p.Spans && (p.MaxSpans <= 0 || len(p.spans) < p.MaxSpans) {
		p.spans = append(p.spans, ProfileSpan{Name: st.kindName(), Desc: st.describe(), Start: start, Dur: d})
	}
}

func (p *Profile) ran() {
	p.mu.Lock()
	p.runs++
	p.mu.Unlock()
}

// Runs is the number of entry-function runs recorded.
func (p *Profile) Runs() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// SpanList returns the recorded spans (Spans set), in order.
func (p *Profile) SpanList() []ProfileSpan {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProfileSpan(nil), p.spans...)
}

// ByKind returns the time per kind of step, largest first.
func (p *Profile) ByKind() []ProfileEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	acc := map[string]*ProfileEntry{}
	for st, t := range p.steps {
		k := st.kindName()
		e := acc[k]
		if e == nil {
			e = &ProfileEntry{Kind: k}
			acc[k] = e
		}
		e.Total += t.d
		e.Count += t.count
		e.Median += t.median()
		e.Loops += t.loops
		e.Helpers += t.helpers
		if t.loops == 0 {
			e.Serial += t.d
		}
	}
	out := make([]ProfileEntry, 0, len(acc))
	for _, e := range acc {
		out = append(out, *e)
	}
	sortEntries(out)
	return out
}

// BySteps returns the time of each step of kind (every kind if empty),
// largest first.
func (p *Profile) BySteps(kind string) []ProfileEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []ProfileEntry
	for st, t := range p.steps {
		if k := st.kindName(); kind == "" || k == kind {
			e := ProfileEntry{Kind: k, Name: st.describe(), Total: t.d, Count: t.count, Median: t.median(), Loops: t.loops, Helpers: t.helpers}
			if t.loops == 0 {
				e.Serial = t.d
			}
			out = append(out, e)
		}
	}
	sortEntries(out)
	return out
}

// median returns the median duration times the count.
func (t *stepTime) median() time.Duration {
	if len(t.samples) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), t.samples...)
	slices.Sort(s)
	return s[len(s)/2] * time.Duration(t.count)
}

func sortEntries(e []ProfileEntry) {
	sort.Slice(e, func(i, j int) bool {
		if e[i].Median != e[j].Median {
			return e[i].Median > e[j].Median
		}
		return e[i].Kind+e[i].Name < e[j].Kind+e[j].Name
	})
}

func (st *execStep) kindName() string {
	switch {
	case st.pipe != nil:
		return "row pipeline"
	case st.group != nil && st.group.red != nil:
		return "fusion+reduce"
	case st.group != nil:
		return "fusion"
	case st.expandNext:
		// with the next two steps, a depthwise and a pointwise
		// convolution (fast_conv_dwpw.go), where the shapes let it
		return shortOpName(st.op.op.Name) + "+dw+pointwise"
	case st.pairNext:
		// with the next step, the pointwise convolution reading it
		// (fast_conv_dwpw.go), where the shapes let it
		return shortOpName(st.op.op.Name) + "+pointwise"
	case st.epi != nil:
		return shortOpName(st.op.op.Name) + "+epilogue"
	}
	return shortOpName(st.op.op.Name)
}

func shortOpName(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 && strings.HasPrefix(name, "stablehlo.") {
		return name[i+1:]
	}
	return name
}

// describe names a step: its op(s) and result type.
func (st *execStep) describe() string {
	if st.pipe != nil {
		return st.pipe.describe()
	}
	if g := st.group; g != nil {
		var ops []string
		seen := map[string]bool{}
		for i := range g.nodes {
			nd := &g.nodes[i]
			if nd.name != "" && !seen[nd.name] {
				seen[nd.name] = true
				ops = append(ops, shortOpName(nd.name))
			}
		}
		sort.Strings(ops)
		return fmt.Sprintf("%d ops (%s) -> %v%v", g.nops, strings.Join(ops, " "), g.dt, g.shape)
	}
	op := st.op.op
	types := func(vs []*stablehlo.Value) string {
		var ts []string
		for _, v := range vs {
			if t := stablehlo.AsTensor(v.Type); t != nil {
				ts = append(ts, fmt.Sprintf("%v%v", t.DType(), t.Shape))
			}
		}
		return strings.Join(ts, ",")
	}
	ins := ""
	switch op.Name {
	case "stablehlo.convolution", "stablehlo.dot_general":
		// the operands tell a 1×1 from a depthwise convolution, a
		// linear layer from a batched product
		ins = " " + types(op.Operands)
		if g, ok := op.Attr("feature_group_count").(*stablehlo.IntAttr); ok && g.Value > 1 {
			ins += fmt.Sprintf(" groups=%d", g.Value)
		}
	}
	return fmt.Sprintf("%s%s -> %s", shortOpName(op.Name), ins, types(op.Results))
}
