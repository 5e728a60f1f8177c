// Package legalize rewrites a StableHLO module into one a PJRT plugin
// compiles and computes right: the passes JAX runs before XLA sees a
// program (shape refinement of polymorphic programs at the call's shapes,
// CHLO to StableHLO, quantized types to integer arithmetic), plus the
// rewrites for element types a plugin cannot carry and for ops XLA
// computes against the spec. Each pass is a row of Passes; a pass is
// skipped when the target plugin supports what it rewrites (Target,
// target.go, says what each plugin lacks).
//
// The package lives under backend/pjrt because only the PJRT path needs
// it (the native backend runs every construct as written), and it cannot
// live in stablehlo/: constant folding evaluates ops with the native
// backend's kernels (native.EvalOp), so that a folded shape is the one
// the executor would compute.
package legalize

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Pass is one rewrite of the pipeline.
type Pass struct {
	Name string
	// Doc says what the pass rewrites, for -h texts and the README.
	Doc string
	// Needed reports whether the pass has work on m for the target; a
	// pass not needed is skipped (and so is one the target supports).
	Needed func(s *State) bool
	// Run rewrites s.Module in place.
	Run func(s *State) error
}

// Passes is the pipeline, in its required order: refinement first (the
// other passes want static shapes), then the op rewrites, then the type
// rewrites (which see only plain StableHLO), then cleanup.
var Passes = []Pass{
	{Name: "prune", Doc: "drop the functions @main does not reach (the plugin compiles @main)",
		Needed: needPrune, Run: runPrune},
	{Name: "inline", Doc: "inline every func.call into @main (refinement specialises one function)",
		Needed: func(s *State) bool { return s.Dynamic() && !s.Target.Dynamic }, Run: runInline},
	{Name: "refine", Doc: "specialise ? dims to the call's shapes, folding the shape computations; dynamic ops become static",
		Needed: func(s *State) bool { return s.Dynamic() && !s.Target.Dynamic }, Run: runRefine},
	{Name: "chlo", Doc: "CHLO ops the plugin does not register, and StableHLO ops it refuses, to StableHLO",
		Needed: needChlo, Run: runChlo},
	{Name: "quant", Doc: "quantized types and uniform_quantize/dequantize to integer and float arithmetic (the spec's rounding and clamping)",
		Needed: needQuant, Run: runQuant},
	{Name: "types", Doc: "element types the plugin cannot carry (sub-byte ints, small floats) computed in a wider type, converted exactly at the edges",
		Needed: needTypes, Run: runTypes},
	{Name: "fixes", Doc: "ops XLA computes against the spec, rewritten to give the spec's answer",
		Needed: needFixes, Run: runFixes},
	{Name: "dce", Doc: "drop ops whose results are unused and that have no effect",
		Needed: func(s *State) bool { return s.changed }, Run: runDCE},
}

// State is what the passes share: the module, the target and, for
// refinement, the call's arguments.
type State struct {
	Ctx    context.Context
	Module *stablehlo.Module
	Target *Target
	// Args describes the call @main is specialised for (nil: the declared
	// argument types, which must then be static).
	Args []Arg
	// Ran lists the passes that ran, in order.
	Ran []string
	// Edges, set by the types pass, says which arguments and results of
	// @main the caller converts (nil: none).
	Edges *Edges
	// changed is set by a pass that may have left dead ops.
	changed bool
}

// Arg is one argument of the call a module is refined for: its type, and
// its value when the program's shapes depend on it (ShapeArgs).
type Arg struct {
	Type  *stablehlo.TensorType
	Value *literal.Literal
}

// Options adjust a pipeline run (debugging).
type Options struct {
	// Disable names passes not to run.
	Disable []string
	// DumpAfter names passes after which the module is printed to Dump.
	DumpAfter []string
	// Verify checks the module with stablehlo.Verify after each pass.
	Verify bool
	// Only, when set, names the passes to run (the others are skipped).
	Only []string
}

// OptionsFromEnv reads TORCHTPU_LEGALIZE_DISABLE and
// TORCHTPU_LEGALIZE_DUMP_AFTER (comma-separated pass names, "all" for
// every pass) and TORCHTPU_LEGALIZE_VERIFY=1.
func OptionsFromEnv() Options {
	split := func(s string) []string {
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	return Options{
		Disable:   split(os.Getenv("TORCHTPU_LEGALIZE_DISABLE")),
		DumpAfter: split(os.Getenv("TORCHTPU_LEGALIZE_DUMP_AFTER")),
		Verify:    os.Getenv("TORCHTPU_LEGALIZE_VERIFY") == "1",
	}
}

func has(list []string, name string) bool {
	for _, n := range list {
		if n == name || n == "all" {
			return true
		}
	}
	return false
}

// Run runs the pipeline on s.Module for s.Target. The module is rewritten
// in place; on error it is left half rewritten and must be dropped.
func Run(s *State, opts Options) error {
	if s.Module == nil {
		return fmt.Errorf("legalize: nil module")
	}
	if s.Module.Func("main") == nil && IsDynamic(s.Module) {
		return fmt.Errorf("legalize: the polymorphic module has no @main")
	}
	if s.Target == nil {
		s.Target = TargetFor("")
	}
	if s.Ctx == nil {
		s.Ctx = context.Background()
	}
	for _, p := range Passes {
		if err := s.Ctx.Err(); err != nil {
			return err
		}
		if has(opts.Disable, p.Name) || (len(opts.Only) > 0 && !has(opts.Only, p.Name)) || !p.Needed(s) {
			continue
		}
		if err := p.Run(s); err != nil {
			return fmt.Errorf("legalize %s: %w", p.Name, err)
		}
		s.Ran = append(s.Ran, p.Name)
		if has(opts.DumpAfter, p.Name) {
			var sb strings.Builder
			if err := stablehlo.Print(&sb, s.Module); err == nil {
				fmt.Fprintf(os.Stderr, "// ---- after legalize %s\n%s\n", p.Name, sb.String())
			}
		}
		if opts.Verify {
			if err := stablehlo.Verify(s.Module); err != nil {
				return fmt.Errorf("legalize %s: the result does not verify: %w", p.Name, err)
			}
		}
	}
	return nil
}

// Needed reports whether some pass has work on s.Module for s.Target:
// when none has, the module goes to the plugin as it is.
func Needed(s *State) bool {
	if s.Target == nil {
		s.Target = TargetFor("")
	}
	for _, p := range Passes {
		if p.Name != "dce" && p.Needed(s) {
			return true
		}
	}
	return false
}

// Dynamic reports whether the module still has a dynamic dim in @main's
// signature or in any op of any function, or an op whose shapes come
// from values (dynamic_* ops, shape assertions).
func (s *State) Dynamic() bool { return IsDynamic(s.Module) }

// IsDynamic reports whether m needs refinement before a plugin without
// dynamic shapes compiles it.
func IsDynamic(m *stablehlo.Module) bool {
	dyn := false
	for _, f := range m.Funcs {
		if f.Type != nil {
			for _, t := range append(append([]stablehlo.Type{}, f.Type.Inputs...), f.Type.Results...) {
				if tt := stablehlo.AsTensor(t); tt != nil && !tt.IsStatic() {
					return true
				}
			}
		}
		_ = f.Body.Walk(func(op *stablehlo.Op) error {
			if dynamicOps[op.Name] != nil || isShapeAssertion(op) {
				dyn = true
			}
			for _, r := range op.Results {
				if tt := stablehlo.AsTensor(r.Type); tt != nil && !tt.IsStatic() {
					dyn = true
				}
			}
			if dyn {
				return errStop
			}
			return nil
		})
		if dyn {
			return true
		}
	}
	return false
}
