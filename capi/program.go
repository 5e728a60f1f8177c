package capi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/cache"
	"github.com/torchtpu/torchtpu/eager"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
)

// Options are a program's settings, passed across the ABI as JSON
// (every field optional).
type Options struct {
	// Device is the device name: "cpu" (the native backend, default),
	// "xla-cpu", "tpu", "cuda", "tpu:1", ...
	Device string `json:"device"`
	// Fallback is the host-fallback policy for data-dependent ops: "cpu"
	// (default) or "error".
	Fallback string `json:"fallback"`
	// CacheDir is the disk compile cache folder: "" is the default folder
	// ($TORCHTPU_CACHE_DIR or the user cache dir), "-" turns the disk
	// cache off. CacheMaxMB bounds it (0: 1024).
	CacheDir   string `json:"cache_dir"`
	CacheMaxMB int64  `json:"cache_max_mb"`
	// NoCache turns off every cache (memory, disk, per-shape plans).
	NoCache bool `json:"no_cache"`
	// Buckets is "" (the device's default: exact on cpu, pow2 on PJRT
	// devices), "pow2", "exact", or sizes such as [8,16,32].
	Buckets     string  `json:"buckets"`
	BucketSizes []int64 `json:"bucket_sizes"`
	// Explain logs every recompile and its reason (to stderr).
	Explain bool `json:"explain"`
	// DebugSync runs each segment synchronously and checks its results.
	DebugSync bool `json:"debug_sync"`
	// Model names the program of a multi-program archive ("": the first).
	Model string `json:"model"`
	// Name labels the program's runs on the tpu device (errors, profiler
	// rows); "" is "program".
	Name string `json:"name"`
}

// Program is a loaded program and its runtime state. Runs of one program
// are serialised (a program keeps per-run state); different programs run
// concurrently.
type Program struct {
	mu     sync.Mutex
	prog   *runtime.Program
	src    *pt2.Program
	device string
	name   string
	info   *Info

	serial bool         // the last run had no parallel loop (lend)
	steps  *stepProfile // TORCHTPU_STEP_PROFILE's (step_profile.go), or nil

	outsOnce sync.Once
	outs     []*eager.OutputSpec // static output specs (RunOnDevice)
	static   bool
}

// ParseOptions reads options JSON ("" or "null" is the defaults).
func ParseOptions(js []byte) (Options, error) {
	var o Options
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, fmt.Errorf("options %s: %w", truncate(string(js), 200), err)
	}
	if dec.More() {
		return o, fmt.Errorf("options: trailing data after the JSON object")
	}
	return o, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// runtimeOptions converts o for runtime.Program.Configure.
func (o Options) runtimeOptions() (runtime.Options, error) {
	ro := runtime.Options{NoCache: o.NoCache, Fallback: o.Fallback, Explain: o.Explain, DebugSync: o.DebugSync}
	switch o.Fallback {
	case "", "cpu", "error":
	default:
		return ro, fmt.Errorf("fallback %q: want \"cpu\" or \"error\"", o.Fallback)
	}
	switch o.CacheDir {
	case "-":
	case "":
		ro.CacheDir = cache.DefaultDir()
	default:
		ro.CacheDir = o.CacheDir
	}
	mb := o.CacheMaxMB
	if mb == 0 {
		mb = 1024
	}
	if mb < 0 {
		return ro, fmt.Errorf("cache_max_mb %d is negative", mb)
	}
	ro.CacheMaxBytes = mb << 20
	switch {
	case o.Buckets == "pow2":
		ro.Buckets = &runtime.BucketPolicy{Pow2: true}
	case o.Buckets == "exact":
		ro.Buckets = &runtime.BucketPolicy{Exact: true}
	case o.Buckets == "" && len(o.BucketSizes) == 0:
	case o.Buckets == "" || o.Buckets == "sizes":
		for _, s := range o.BucketSizes {
			if s < 1 {
				return ro, fmt.Errorf("bucket size %d: sizes must be positive", s)
			}
		}
		ro.Buckets = &runtime.BucketPolicy{Sizes: append([]int64(nil), o.BucketSizes...)}
	default:
		return ro, fmt.Errorf("buckets %q: want \"pow2\", \"exact\" or bucket_sizes", o.Buckets)
	}
	ro.Log = os.Stderr
	return ro, nil
}

// Load reads a .pt2 archive from data and prepares it for the device of
// opts. The archive bytes are not kept: weights are copied out of them.
func Load(data []byte, opts Options) (*Program, error) {
	ro, err := opts.runtimeOptions()
	if err != nil {
		return nil, err
	}
	src, err := pt2.ReadModel(bytes.NewReader(data), int64(len(data)), opts.Model)
	if err != nil {
		return nil, fmt.Errorf("read archive: %w", err)
	}
	device := opts.Device
	if device == "" {
		device = "cpu"
	}
	prog, err := runtime.FromPT2(src, device)
	if err != nil {
		return nil, err
	}
	if err := prog.Configure(ro); err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = "program"
	}
	p := &Program{prog: prog, src: src, device: device, name: name, steps: newStepProfile(name)}
	p.info = describe(src.Graph, device)
	return p, nil
}

// LoadHandle is Load returning a handle.
func LoadHandle(data []byte, optsJSON []byte) (Handle, error) {
	opts, err := ParseOptions(optsJSON)
	if err != nil {
		return 0, err
	}
	p, err := Load(data, opts)
	if err != nil {
		return 0, err
	}
	return put(p), nil
}

// Info describes a program for the caller: its user inputs and outputs,
// and the ops the registry cannot run (the caller decides whether to fall
// back or fail before running).
type Info struct {
	Device      string         `json:"device"`
	Inputs      []IOInfo       `json:"inputs"`
	Outputs     []IOInfo       `json:"outputs"`
	Unsupported []Unsupported  `json:"unsupported"`
	Ops         map[string]int `json:"ops"`
}

// IOInfo is one user input or output. Shape entries are a number or a
// symbol name ("s0") for symbolic dims; Kind is "tensor", "int", "float",
// "bool", "none" or "constant".
type IOInfo struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	DType string `json:"dtype,omitempty"`
	Shape []any  `json:"shape,omitempty"`
}

// Unsupported is an op the registry does not know, with the first node
// that uses it and the Python source line of that node.
type Unsupported struct {
	Op     string `json:"op"`
	Node   string `json:"node"`
	Source string `json:"source,omitempty"`
	Count  int    `json:"count"`
}

func describe(g *fx.Graph, device string) *Info {
	info := &Info{Device: device, Ops: g.OpCounts(), Inputs: []IOInfo{}, Outputs: []IOInfo{}, Unsupported: []Unsupported{}}
	for _, s := range g.UserInputs() {
		info.Inputs = append(info.Inputs, ioInfo(g, s.Arg))
	}
	for _, s := range g.UserOutputs() {
		info.Outputs = append(info.Outputs, ioInfo(g, s.Arg))
	}
	seen := map[string]int{}
	var walk func(*fx.Graph)
	walk = func(g *fx.Graph) {
		for _, n := range g.Nodes {
			if _, ok := aten.Lookup(n.Target); !ok && !structural(n.Target) {
				if i, dup := seen[n.Target]; dup {
					info.Unsupported[i].Count++
				} else {
					seen[n.Target] = len(info.Unsupported)
					info.Unsupported = append(info.Unsupported, Unsupported{Op: n.Target, Node: n.Name, Source: n.SourceLine(), Count: 1})
				}
			}
			for _, sg := range n.Subgraphs() {
				walk(sg)
			}
		}
	}
	walk(g)
	sort.SliceStable(info.Unsupported, func(i, j int) bool { return info.Unsupported[i].Op < info.Unsupported[j].Op })
	return info
}

// structural reports targets the runtime handles itself rather than the
// registry (Python operators on sizes, higher-order ops).
func structural(target string) bool {
	for _, p := range []string{"_operator.", "torch.sym_", "higher_order::", "math."} {
		if len(target) >= len(p) && target[:len(p)] == p {
			return true
		}
	}
	return false
}

func ioInfo(g *fx.Graph, a fx.Arg) IOInfo {
	names := a.ValueNames()
	io := IOInfo{Kind: "constant"}
	if len(names) == 1 {
		io.Name = names[0]
		if tm, ok := g.Tensors[names[0]]; ok {
			io.Kind = "tensor"
			io.DType = tm.DType.Torch()
			for _, d := range tm.Shape {
				if d.IsStatic() {
					io.Shape = append(io.Shape, d.Static)
				} else {
					io.Shape = append(io.Shape, d.String())
				}
			}
			if io.Shape == nil {
				io.Shape = []any{}
			}
		} else if _, ok := g.SymInts[names[0]]; ok {
			io.Kind = "int"
		} else if _, ok := g.SymFloats[names[0]]; ok {
			io.Kind = "float"
		} else if _, ok := g.SymBools[names[0]]; ok {
			io.Kind = "bool"
		}
	} else if len(names) == 0 && a.IsNone() {
		io.Kind = "none"
	}
	return io
}

// InfoJSON returns the program's Info as JSON.
func InfoJSON(h Handle) ([]byte, error) {
	p, err := get[*Program](h, "program")
	if err != nil {
		return nil, err
	}
	return json.Marshal(p.info)
}

// MetricsJSON returns the program's run metrics as JSON (compiles, cache
// hits, fallbacks, recompiles with reasons, run and segment times).
func MetricsJSON(h Handle) ([]byte, error) {
	p, err := get[*Program](h, "program")
	if err != nil {
		return nil, err
	}
	return json.Marshal(p.prog.Metrics().Snapshot())
}

// Run runs program h on the inputs and returns a result handle. Input
// memory is read during the call only.
func Run(ctx context.Context, h Handle, inputs []TensorDesc) (Handle, error) {
	p, err := get[*Program](h, "program")
	if err != nil {
		return 0, err
	}
	ins, err := inputLiterals(inputs)
	if err != nil {
		return 0, err
	}
	mark := heapMark()
	outs, err := p.run(ctx, ins)
	defer tuneHeap(mark)
	if err != nil {
		return 0, err
	}
	// Outputs may alias inputs (a graph returning an input) or weights (a
	// graph returning a constant): results are the caller's to keep and
	// write, so they must not share memory with either.
	weights := make([]*literal.Literal, 0, len(p.prog.Weights))
	for _, w := range p.prog.Weights {
		weights = append(weights, w)
	}
	for i, o := range outs {
		if o != nil && (aliases(o, ins) || aliases(o, weights)) {
			outs[i] = &literal.Literal{DType: o.DType, Shape: o.Shape, Data: append([]byte(nil), o.Data...)}
		}
	}
	return put(&Result{outs: outs}), nil
}

// RunInto runs program h on inputs and writes its outputs into the caller's
// memory outs describe (one descriptor per output, in the layout each
// gives; a negative DType skips that output), with no result handle and
// no copy out of the engine but the one into outs. An output whose dtype
// or shape differs from its descriptor is an error naming it.
func RunInto(ctx context.Context, h Handle, inputs, outs []TensorDesc) error {
	p, err := get[*Program](h, "program")
	if err != nil {
		return err
	}
	ins, err := inputLiterals(inputs)
	if err != nil {
		return err
	}
	return p.runInto(ctx, ins, outs)
}

// inputLiterals reads a call's inputs as literals (TensorDesc.Literal),
// the literals and their shapes in one allocation each.
func inputLiterals(inputs []TensorDesc) ([]*literal.Literal, error) {
	ins := make([]*literal.Literal, len(inputs))
	lits := make([]literal.Literal, len(inputs))
	rank := 0
	for i := range inputs {
		rank += len(inputs[i].Shape)
	}
	shapes := make([]int64, rank)
	for i := range inputs {
		r := len(inputs[i].Shape)
		if err := inputs[i].literalInto(&lits[i], shapes[:r:r]); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		ins[i], shapes = &lits[i], shapes[r:]
	}
	return ins, nil
}

// runInto runs the program on ins and stores its outputs into outs.
func (p *Program) runInto(ctx context.Context, ins []*literal.Literal, outs []TensorDesc) error {
	mark := heapMark()
	if dst := outputBuffers(outs, ins); dst != nil {
		ctx = runtime.WithOutputBuffers(ctx, dst)
	}
	res, err := p.run(ctx, ins)
	defer tuneHeap(mark)
	if err != nil {
		return err
	}
	if len(res) != len(outs) {
		return fmt.Errorf("the program has %d outputs, %d destinations given", len(res), len(outs))
	}
	t0 := time.Now()
	copied, bytes := 0, 0
	for i := range outs {
		if outs[i].DType < 0 {
			continue
		}
		if res[i] == nil {
			return fmt.Errorf("output %d: the program returns None, a tensor destination was given", i)
		}
		if p.steps != nil && len(res[i].Data) > 0 && unsafe.Pointer(&res[i].Data[0]) != outs[i].Data {
			copied, bytes = copied+1, bytes+len(res[i].Data)
		}
		if err := outs[i].Store(res[i]); err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
	}
	p.steps.stored(time.Since(t0), copied, bytes)
	return nil
}

// run runs the program on ins, one call at a time, on the host's threads
// where it lends them (lend), its steps timed when the environment asks
// for a step profile (step_profile.go).
func (p *Program) run(ctx context.Context, ins []*literal.Literal) ([]*literal.Literal, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var res []*literal.Literal
	var err error
	ctx = p.steps.context(ctx)
	t0 := time.Now()
	p.lend(func() { res, _, err = p.prog.Run(ctx, ins) })
	p.steps.ran(time.Since(t0))
	return res, err
}

// outputBufferMin is the smallest output offered to the engine to
// compute in place: below it a copy costs less than passing it down.
const outputBufferMin = 16 << 10

// outputBuffers returns the memory of each dense destination of at least
// outputBufferMin bytes, for the engine to compute the outputs into
// (runtime.WithOutputBuffers), or nil when there is none: nil for a
// skipped, small or strided one, one whose descriptor is malformed (Store
// reports it), and one that overlaps an input or another destination
// (the run would overwrite what it still reads).
func outputBuffers(outs []TensorDesc, ins []*literal.Literal) [][]byte {
	var dst [][]byte
	for i := range outs {
		if outs[i].DType < 0 {
			continue
		}
		dt, n, contiguous, err := outs[i].checked()
		if err != nil || !contiguous || n*int64(dt.Size()) < outputBufferMin || n*int64(dt.Size()) > outs[i].Extent {
			continue
		}
		if dst == nil {
			dst = make([][]byte, len(outs))
		}
		dst[i] = unsafe.Slice((*byte)(outs[i].Data), n*int64(dt.Size()))
	}
	if dst == nil {
		return nil
	}
	// the spans of outputs (index i) and inputs (-1), sorted by start: a
	// span overlapping any other one drops its output
	type span struct {
		lo, hi uintptr
		out    int
	}
	spans := make([]span, 0, len(dst)+len(ins))
	for i, d := range dst {
		if d != nil {
			spans = append(spans, span{addr(d), addr(d) + uintptr(len(d)), i})
		}
	}
	for _, in := range ins {
		if in != nil && len(in.Data) > 0 {
			spans = append(spans, span{addr(in.Data), addr(in.Data) + uintptr(len(in.Data)), -1})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	// a run of spans each starting before the farthest end so far is a
	// cluster of overlapping memory: every output in one of two or more
	// spans is dropped
	start, end := 0, uintptr(0)
	for k := 0; k <= len(spans); k++ {
		if k < len(spans) && (k == start || spans[k].lo < end) {
			end = max(end, spans[k].hi)
			continue
		}
		if k-start > 1 {
			for _, sp := range spans[start:k] {
				if sp.out >= 0 {
					dst[sp.out] = nil
				}
			}
		}
		if k < len(spans) {
			start, end = k, spans[k].hi
		}
	}
	return dst
}

// lend runs a run of the program with the host's threads lent for it
// (native.Lend: inside PyTorch, its intra-op threads serve the run's
// parallel loops), unless its last run had no parallel loop: asking the
// host for its threads costs a few microseconds, most of a small graph's
// run. A run without lending still counts its loops, so a program whose
// shapes grow gets its lending back. Called with p.mu held.
func (p *Program) lend(f func()) {
	before := native.ParallelLoops()
	if p.serial {
		f()
	} else {
		native.Lend(f)
	}
	p.serial = native.ParallelLoops() == before
}

// aliases reports whether o's bytes overlap any input's.
func aliases(o *literal.Literal, ins []*literal.Literal) bool {
	if len(o.Data) == 0 {
		return false
	}
	lo, hi := addr(o.Data), addr(o.Data)+uintptr(len(o.Data))
	for _, in := range ins {
		if len(in.Data) == 0 {
			continue
		}
		a, b := addr(in.Data), addr(in.Data)+uintptr(len(in.Data))
		if lo < b && a < hi {
			return true
		}
	}
	return false
}
