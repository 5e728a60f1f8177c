package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// Outcome classifies one case.
type Outcome string

// Outcomes. A case PyTorch rejected (error_inputs) passes when torchtpu
// rejects it too with an error; it is "accepted" when torchtpu runs it.
const (
	Pass       Outcome = "pass"
	NotLowered Outcome = "not lowered"
	Wrong      Outcome = "wrong values"
	Error      Outcome = "error"
	Panic      Outcome = "recovered panic"
	Crash      Outcome = "crash"
	Accepted   Outcome = "accepted"
)

// Outcomes lists them in table order.
var Outcomes = []Outcome{Pass, NotLowered, Wrong, Error, Panic, Crash, Accepted}

// Result is what the runner found for one case.
type Result struct {
	Name    string  `json:"name"`
	Outcome Outcome `json:"outcome"`
	// Detail is the error, or the first mismatch.
	Detail string `json:"detail,omitempty"`
	// Missing lists the ops the registry has no entry for.
	Missing []string `json:"missing,omitempty"`
}

// Runner runs cases in the calling process.
type Runner struct {
	Dir    string // the cases folder
	Device string // backend device ("cpu", "xla-cpu", ...)
	// Check verifies every lowered module and its MLIR text round trip
	// (runtime.Program.Check): what a PJRT device would be handed.
	Check bool
}

// Run runs one case. A panic anywhere (loading, lowering, running,
// comparing) becomes a Panic result.
func (r *Runner) Run(ctx context.Context, c *Case) (res Result) {
	res.Name = c.Name
	defer func() {
		if e := recover(); e != nil {
			res.Outcome, res.Detail = Panic, fmt.Sprintf("runner: %v", e)
		}
	}()
	base := filepath.Join(r.Dir, c.Name)
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		return classifyErr(res, fmt.Errorf("load: %w", err))
	}
	for _, n := range p.Graph.Nodes {
		if _, ok := aten.Lookup(n.Target); !ok && !slices.Contains(res.Missing, n.Target) {
			res.Missing = append(res.Missing, n.Target)
		}
	}
	io, err := safetensors.Load(base + ".io.safetensors")
	if err != nil {
		return classifyErr(res, fmt.Errorf("io: %w", err))
	}
	prog, err := runtime.FromPT2(p, r.Device)
	if err != nil {
		return classifyErr(res, err)
	}
	prog.Check = r.Check
	if err := prog.Configure(runtime.Options{NoCache: true, Log: discard{}}); err != nil {
		return classifyErr(res, err)
	}
	outs, _, err := prog.Run(ctx, io.Inputs())
	if c.ExpectError != "" {
		switch {
		case err == nil:
			res.Outcome, res.Detail = Accepted, "ran, where PyTorch raises "+c.ExpectError
			return res
		}
		// Rejected, but for want of a lowering or by a panic: not a
		// clean error.
		if res = classifyErr(res, err); res.Outcome == Error {
			res.Outcome = Pass
		}
		return res
	}
	if err != nil {
		return classifyErr(res, err)
	}
	res.Outcome, res.Detail = compareOutputs(outs, io, c.Random)
	return res
}

// compareOutputs checks the outputs against PyTorch's: values within
// torch.testing's default tolerance of their dtype, or only dtype and
// shape for random ones.
func compareOutputs(outs []*literal.Literal, io *safetensors.File, random bool) (Outcome, string) {
	want := io.Outputs()
	if len(outs) != len(want) {
		return Wrong, fmt.Sprintf("%d outputs, PyTorch has %d", len(outs), len(want))
	}
	for i, w := range want {
		g := outs[i]
		if random {
			if g == nil || g.DType != w.DType || !slices.Equal(g.Shape, w.Shape) {
				return Wrong, fmt.Sprintf("output.%d: %s, want %s%v", i, describe(g), w.DType.Torch(), w.Shape)
			}
			continue
		}
		cmp := runtime.Compare(g, w, runtime.DefaultTolerance(w.DType))
		if !cmp.OK {
			d := fmt.Sprintf("output.%d %s%v: %s", i, w.DType.Torch(), w.Shape, cmp.Detail)
			if cmp.Mismatches > 0 {
				d += fmt.Sprintf(" (%d of %d elements, max abs %.3g, max rel %.3g)", cmp.Mismatches, w.Len(), cmp.MaxAbs, cmp.MaxRel)
			}
			return Wrong, d
		}
	}
	return Pass, ""
}

func describe(l *literal.Literal) string {
	if l == nil {
		return "no output"
	}
	return fmt.Sprintf("%s%v", l.DType.Torch(), l.Shape)
}

// classifyErr sorts a failed run into not lowered (an op without a
// registry entry, or a decomposition that needs one), recovered panic
// (the runtime's "internal error") or error.
func classifyErr(res Result, err error) Result {
	msg := oneLine(err.Error())
	switch {
	case isPanic(err):
		res.Outcome = Panic
	case len(res.Missing) > 0,
		strings.Contains(msg, "no lowering registered"),
		strings.Contains(msg, "which is not registered"):
		res.Outcome = NotLowered
	default:
		res.Outcome = Error
	}
	res.Detail = msg
	return res
}

// isPanic recognizes a recovered panic: the runtime reports one in a
// lowering as an "internal error" naming the node, the native backend one
// in a kernel as "panicked".
func isPanic(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "internal error: ") || strings.Contains(msg, ") panicked: ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
