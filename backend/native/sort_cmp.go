package native

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Sort comparators are called n·log(n) times, so calling the region
// through the interpreter dominates a sort. Comparators built only of
// constant, compare, select, and, or, xor and not on 0-d real or integer
// values (what JAX and the aten lowering emit: plain compares, NaN and -0
// canonicalisation, lexicographic keys) are compiled here into steps over
// reusable 0-d literals: no allocation per comparison, same helpers as the
// compare kernel, so the same answers. Anything else keeps the region
// call.

type cmpStepKind int

const (
	csCompare cmpStepKind = iota
	csSelect
	csAnd
	csOr
	csXor
	csNot
)

type cmpStep struct {
	kind    cmpStepKind
	a, b, c int    // operand slots
	out     int    // result slot
	dir     string // compare direction
	ct      string // compare type, resolved
}

// cmpProg is a compiled comparator.
type cmpProg struct {
	slots []*literal.Literal // block args first; results own their bytes
	steps []cmpStep
	ret   int
}

// compileCmp compiles a comparator region, or returns nil when it uses
// anything outside the supported subset.
func compileCmp(r *stablehlo.Region) *cmpProg {
	blk := r.Entry()
	if blk == nil || len(blk.Ops) == 0 {
		return nil
	}
	p := &cmpProg{}
	slotOf := map[*stablehlo.Value]int{}
	newSlot := func(v *stablehlo.Value, own bool) (int, bool) {
		t := stablehlo.AsTensor(v.Type)
		if t == nil || t.Rank() != 0 || t.Elem.IsQuantized() || t.DType().IsComplex() || t.DType().Size() == 0 || t.DType().Size() > 8 {
			return 0, false
		}
		l := &literal.Literal{DType: t.DType(), Shape: []int64{}}
		if own {
			l.Data = make([]byte, t.DType().Size())
		}
		slotOf[v] = len(p.slots)
		p.slots = append(p.slots, l)
		return len(p.slots) - 1, true
	}
	for _, a := range blk.Args {
		if _, ok := newSlot(a, false); !ok {
			return nil
		}
	}
	operands := func(op *stablehlo.Op, n int) ([]int, bool) {
		if len(op.Operands) != n || len(op.Regions) != 0 {
			return nil, false
		}
		out := make([]int, n)
		for i, v := range op.Operands {
			s, ok := slotOf[v]
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	for i, op := range blk.Ops {
		if op.Name == "stablehlo.return" {
			in, ok := operands(op, 1)
			if !ok || i != len(blk.Ops)-1 || p.slots[in[0]].DType != dtype.Bool {
				return nil
			}
			p.ret = in[0]
			return p
		}
		if len(op.Results) != 1 {
			return nil
		}
		if op.Name == "stablehlo.constant" {
			s, ok := newSlot(op.Results[0], false)
			da, isDense := op.Attr("value").(*stablehlo.DenseAttr)
			if !ok || !isDense || da.Value == nil || da.Value.DType != p.slots[s].DType || da.Value.Len() != 1 {
				return nil
			}
			p.slots[s].Data = da.Value.Data
			continue
		}
		st, ok := cmpStepOf(op, p.slots, operands)
		if !ok {
			return nil
		}
		if st.kind == csSelect {
			// select aliases one of its operands: no bytes of its own.
			if st.out, ok = newSlot(op.Results[0], false); !ok || p.slots[st.out].DType != p.slots[st.b].DType {
				return nil
			}
		} else if st.out, ok = newSlot(op.Results[0], true); !ok {
			return nil
		}
		if st.kind == csCompare && p.slots[st.out].DType != dtype.Bool {
			return nil
		}
		if st.kind != csCompare && st.kind != csSelect && p.slots[st.out].DType != p.slots[st.a].DType {
			return nil
		}
		p.steps = append(p.steps, st)
	}
	return nil // no terminator
}

// cmpStepOf decodes one non-constant op of a comparator.
func cmpStepOf(op *stablehlo.Op, slots []*literal.Literal, operands func(*stablehlo.Op, int) ([]int, bool)) (cmpStep, bool) {
	var st cmpStep
	intLike := func(s int) bool { d := slots[s].DType; return d.IsInteger() || d.IsBool() }
	switch op.Name {
	case "stablehlo.compare":
		in, ok := operands(op, 2)
		if !ok || slots[in[0]].DType != slots[in[1]].DType {
			return st, false
		}
		st.kind, st.a, st.b = csCompare, in[0], in[1]
		if st.dir, ok = op.Enum("comparison_direction"); !ok {
			return st, false
		}
		switch st.dir {
		case "EQ", "NE", "GE", "GT", "LE", "LT":
		default:
			return st, false
		}
		d := slots[st.a].DType
		st.ct, _ = op.Enum("compare_type")
		if st.ct == "" || st.ct == "NOTYPE" {
			switch {
			case d.IsFloat():
				st.ct = "FLOAT"
			case d.IsSigned():
				st.ct = "SIGNED"
			default:
				st.ct = "UNSIGNED"
			}
		}
		if d.IsBool() && st.ct == "SIGNED" {
			st.ct = "UNSIGNED" // as the compare kernel does
		}
		switch {
		case d.IsFloat() && (st.ct == "FLOAT" || st.ct == "TOTALORDER"):
		case (d.IsInteger() || d.IsBool()) && (st.ct == "SIGNED" || st.ct == "UNSIGNED"):
		default:
			return st, false
		}
	case "stablehlo.select":
		in, ok := operands(op, 3)
		if !ok || slots[in[0]].DType != dtype.Bool || slots[in[1]].DType != slots[in[2]].DType {
			return st, false
		}
		st.kind, st.a, st.b, st.c = csSelect, in[0], in[1], in[2]
	case "stablehlo.and", "stablehlo.or", "stablehlo.xor":
		in, ok := operands(op, 2)
		if !ok || !intLike(in[0]) || slots[in[0]].DType != slots[in[1]].DType {
			return st, false
		}
		st.kind, st.a, st.b = csXor, in[0], in[1]
		switch op.Name {
		case "stablehlo.and":
			st.kind = csAnd
		case "stablehlo.or":
			st.kind = csOr
		}
	case "stablehlo.not":
		in, ok := operands(op, 1)
		if !ok || !intLike(in[0]) {
			return st, false
		}
		st.kind, st.a = csNot, in[0]
	default:
		return st, false
	}
	return st, true
}

// run evaluates the comparator on args (views of the compared elements,
// set by the caller in p.slots[:nargs]).
func (p *cmpProg) run() bool {
	s := p.slots
	for i := range p.steps {
		st := &p.steps[i]
		out := s[st.out]
		switch st.kind {
		case csCompare:
			x, y := s[st.a], s[st.b]
			var r bool
			switch st.ct {
			case "TOTALORDER":
				r = cmpResult(st.dir, cmp3(totalKey(x, 0), totalKey(y, 0)), true)
			case "FLOAT":
				a, b := x.Float64(0), y.Float64(0)
				r = cmpResult(st.dir, cmp3(a, b), a == a && b == b)
			case "SIGNED":
				r = cmpResult(st.dir, cmp3(x.Int64(0), y.Int64(0)), true)
			default:
				m := widthMask(x.DType)
				r = cmpResult(st.dir, cmp3(x.Uint64(0)&m, y.Uint64(0)&m), true)
			}
			out.Data[0] = byte(b2i(r))
		case csSelect:
			if s[st.a].Data[0] != 0 {
				out.Data = s[st.b].Data
			} else {
				out.Data = s[st.c].Data
			}
		case csNot:
			if out.DType == dtype.Bool {
				out.Data[0] = 1 &^ s[st.a].Data[0]
			} else {
				out.SetInt64(0, ^s[st.a].Int64(0))
			}
		default:
			a, b := s[st.a].Uint64(0), s[st.b].Uint64(0)
			var v uint64
			switch st.kind {
			case csAnd:
				v = a & b
			case csOr:
				v = a | b
			default:
				v = a ^ b
			}
			out.SetInt64(0, int64(v))
		}
	}
	return s[p.ret].Data[0] != 0
}
