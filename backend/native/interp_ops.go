package native

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The interpreter dialect of the StableHLO test suite: run_parallel,
// probe and print.

func init() {
	register("interpreter.run_parallel", evalRunParallel)
	register("interpreter.probe", evalProbe)
	register("interpreter.print", evalPrint)
}

func frameOf(env Env) (*frame, error) {
	fr, ok := env.(*frame)
	if !ok {
		return nil, fmt.Errorf("needs the native interpreter's environment, got %T", env)
	}
	return fr, nil
}

// evalRunParallel runs programs[r][p] as replica r, partition p of a new
// grid, concurrently. Each program takes the next operands in order, and
// the results are concatenated in the same order. The optional infeed
// functions are called first; their results fill the infeed queue.
func evalRunParallel(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	fr, err := frameOf(env)
	if err != nil {
		return nil, err
	}
	progs, ok := op.Attr("programs").(stablehlo.ArrayAttr)
	if !ok || len(progs) == 0 {
		return nil, fmt.Errorf("programs must be a non-empty array of arrays of functions")
	}
	var names [][]string
	for r, row := range progs {
		arr, ok := row.(stablehlo.ArrayAttr)
		if !ok || len(arr) == 0 || (r > 0 && len(arr) != len(names[0])) {
			return nil, fmt.Errorf("programs row %d must be a non-empty array of the same length as row 0", r)
		}
		var ns []string
		for _, a := range arr {
			s, ok := a.(stablehlo.SymbolRefAttr)
			if !ok {
				return nil, fmt.Errorf("programs row %d holds %T, want a function symbol", r, a)
			}
			ns = append(ns, string(s))
		}
		names = append(names, ns)
	}
	prog := fr.proc.prog
	g := newGrid(fr.proc.ctx, len(names), len(names[0]))
	defer g.cancel(nil)
	if inf, ok := op.Attr("infeed").(stablehlo.ArrayAttr); ok {
		for _, a := range inf {
			s, ok := a.(stablehlo.SymbolRefAttr)
			if !ok {
				return nil, fmt.Errorf("infeed holds %T, want a function symbol", a)
			}
			vs, err := fr.CallFunc(string(s), nil)
			if err != nil {
				return nil, fmt.Errorf("infeed @%s: %w", s, err)
			}
			g.infeed = append(g.infeed, vs...)
		}
	}
	type slot struct{ argLo, argHi, resLo, resHi int }
	slots := make([][]slot, len(names))
	na, nr := 0, 0
	for r, row := range names {
		for _, n := range row {
			f, ok := prog.funcs[n]
			if !ok || f.Type == nil {
				return nil, fmt.Errorf("program @%s is not a function of the module", n)
			}
			s := slot{na, na + len(f.Type.Inputs), nr, nr + len(f.Type.Results)}
			na, nr = s.argHi, s.resHi
			slots[r] = append(slots[r], s)
		}
	}
	if na != len(in) {
		return nil, fmt.Errorf("programs take %d inputs in all, got %d", na, len(in))
	}
	if nr != len(op.Results) {
		return nil, fmt.Errorf("programs return %d results in all, op has %d", nr, len(op.Results))
	}
	out := make([]Value, nr)
	err = prog.runGrid(g, func(pr *process) error {
		s := slots[pr.replica][pr.partition]
		res, err := pr.callFunc(names[pr.replica][pr.partition], in[s.argLo:s.argHi])
		if err != nil {
			return err
		}
		if len(res) != s.resHi-s.resLo {
			return fmt.Errorf("@%s returned %d values, want %d", names[pr.replica][pr.partition], len(res), s.resHi-s.resLo)
		}
		copy(out[s.resLo:s.resHi], res)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// evalProbe records its operand under probe_id (for
// check.expect_serialized_eq) and returns it.
func evalProbe(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	fr, err := frameOf(env)
	if err != nil {
		return nil, err
	}
	id, ok := op.Attr("probe_id").(stablehlo.StringAttr)
	if !ok {
		return nil, fmt.Errorf("missing probe_id")
	}
	if len(in) != 1 {
		return nil, fmt.Errorf("want 1 operand, got %d", len(in))
	}
	p := fr.proc.prog
	p.probeMu.Lock()
	p.probes[string(id)] = append(p.probes[string(id)], in[0])
	p.probeMu.Unlock()
	return []Value{in[0]}, nil
}

// evalPrint writes its operand to the program's output, if any.
func evalPrint(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	fr, err := frameOf(env)
	if err != nil {
		return nil, err
	}
	if len(in) != 1 {
		return nil, fmt.Errorf("want 1 operand, got %d", len(in))
	}
	p := fr.proc.prog
	if p.out == nil {
		return nil, nil
	}
	name := ""
	if len(op.Operands) == 1 && op.Operands[0] != nil && op.Operands[0].Name != "" {
		name = "%" + op.Operands[0].Name + " = "
	}
	p.probeMu.Lock()
	defer p.probeMu.Unlock()
	_, err = fmt.Fprintf(p.out, "%s%s\n", name, formatValue(in[0]))
	return nil, err
}

// formatValue renders a value for printing: type and elements.
func formatValue(v Value) string {
	switch v := v.(type) {
	case *literal.Literal:
		var b strings.Builder
		fmt.Fprintf(&b, "%v {", v)
		n := v.Len()
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == 64 {
				fmt.Fprintf(&b, "... (%d more)", n-i)
				break
			}
			b.WriteString(formatElem(v, i))
		}
		b.WriteString("}")
		return b.String()
	case Tuple:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatValue(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case Token:
		return "!stablehlo.token"
	}
	return fmt.Sprintf("%v", v)
}

func formatElem(l *literal.Literal, i int) string {
	d := l.DType
	switch {
	case d.IsBool():
		return fmt.Sprint(l.Int64(i) != 0)
	case d.IsUnsigned():
		return fmt.Sprint(l.Uint64(i))
	case d.IsInteger():
		return fmt.Sprint(l.Int64(i))
	case d.IsComplex():
		c := l.Complex128(i)
		return fmt.Sprintf("(%g, %g)", real(c), imag(c))
	}
	return fmt.Sprintf("%g", l.Float64(i))
}
