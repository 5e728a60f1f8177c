// Package sym holds symbolic integer expressions: the sizes, strides and
// shape arithmetic that torch.export records with symbolic dimensions.
//
// An export writes them as sympy srepr strings ("Mul(Integer(4),
// Symbol('s77', positive=True, integer=True))"); Parse reads that form, and
// the older str() form ("4*s0") too. Eval computes the value for concrete
// bindings of the symbols, with Python's integer semantics (floor division,
// modulo with the divisor's sign).
package sym

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// Op is the kind of an expression node.
type Op uint8

// Expression operators. The comment names the sympy / torch function.
const (
	OpInvalid    Op = iota
	OpInt           // Integer(n); also True/False as 1/0 in boolean context
	OpRational      // Rational(p, q)
	OpFloat         // Float('1.5', precision=53)
	OpSymbol        // Symbol('s0', ...)
	OpAdd           // Add(a, b, ...)
	OpMul           // Mul(a, b, ...)
	OpPow           // Pow(base, exp)
	OpFloorDiv      // FloorDiv(a, b): floor(a / b)
	OpCeilDiv       // CeilDiv(a, b): ceil(a / b)
	OpMod           // Mod(a, b): sympy Mod, result has the divisor's sign
	OpPythonMod     // PythonMod(a, b): Python %, divisor's sign
	OpCleanDiv      // CleanDiv(a, b): exact division
	OpIntTrueDiv    // IntTrueDiv(a, b): a / b as a float
	OpTrueDiv       // FloatTrueDiv / TrueDiv
	OpFloor         // floor(x), FloorToInt(x)
	OpCeil          // ceiling(x), CeilToInt(x)
	OpTrunc         // TruncToInt(x), TruncToFloat(x)
	OpRound         // RoundToInt(x)
	OpAbs           // Abs(x)
	OpMax           // Max(a, b, ...)
	OpMin           // Min(a, b, ...)
	OpToFloat       // ToFloat(x)
	OpEq            // Eq(a, b)
	OpNe            // Ne(a, b)
	OpLt            // StrictLessThan(a, b)
	OpLe            // LessThan(a, b)
	OpGt            // StrictGreaterThan(a, b)
	OpGe            // GreaterThan(a, b)
	OpAnd           // And(a, b, ...)
	OpOr            // Or(a, b, ...)
	OpNot           // Not(a)
	OpPiecewise     // Piecewise((v, cond), ...), each pair a Tuple
	OpTuple         // Tuple(a, b): only inside Piecewise
	numOps
)

var opNames = [numOps]string{
	OpInvalid: "Invalid", OpInt: "Integer", OpRational: "Rational", OpFloat: "Float",
	OpSymbol: "Symbol", OpAdd: "Add", OpMul: "Mul", OpPow: "Pow", OpFloorDiv: "FloorDiv",
	OpCeilDiv: "CeilDiv", OpMod: "Mod", OpPythonMod: "PythonMod", OpCleanDiv: "CleanDiv",
	OpIntTrueDiv: "IntTrueDiv", OpTrueDiv: "FloatTrueDiv", OpFloor: "FloorToInt",
	OpCeil: "CeilToInt", OpTrunc: "TruncToInt", OpRound: "RoundToInt", OpAbs: "Abs",
	OpMax: "Max", OpMin: "Min", OpToFloat: "ToFloat", OpEq: "Eq", OpNe: "Ne",
	OpLt: "StrictLessThan", OpLe: "LessThan", OpGt: "StrictGreaterThan", OpGe: "GreaterThan",
	OpAnd: "And", OpOr: "Or", OpNot: "Not", OpPiecewise: "Piecewise", OpTuple: "Tuple",
}

// String returns the sympy-style function name.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Expr is an immutable symbolic expression tree.
type Expr struct {
	Op    Op
	Name  string   // OpSymbol: the symbol name ("s77")
	Int   int64    // OpInt: the value
	Rat   *big.Rat // OpRational, OpFloat: the value
	Args  []*Expr  // operands, in sympy order
	Flags []string // OpSymbol: assumptions as written ("positive=True"), for printing
}

// Int returns the constant expression n.
func Int(n int64) *Expr { return &Expr{Op: OpInt, Int: n} }

// Symbol returns the symbol name.
func Symbol(name string) *Expr { return &Expr{Op: OpSymbol, Name: name} }

// New builds an operator node.
func New(op Op, args ...*Expr) *Expr { return &Expr{Op: op, Args: args} }

// IsConst reports whether e is an integer constant, and its value.
func (e *Expr) IsConst() (int64, bool) {
	if e != nil && e.Op == OpInt {
		return e.Int, true
	}
	return 0, false
}

// Symbols returns the distinct symbol names in e, sorted.
func (e *Expr) Symbols() []string {
	seen := map[string]bool{}
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x == nil {
			return
		}
		if x.Op == OpSymbol {
			seen[x.Name] = true
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// negated returns -e when e prints naturally with a leading minus
// (a negative constant, or a product with a negative constant factor).
func (e *Expr) negated() (*Expr, bool) {
	if v, ok := e.IsConst(); ok && v < 0 && v != -v {
		return Int(-v), true
	}
	if e.Op == OpMul && len(e.Args) >= 2 {
		if v, ok := e.Args[0].IsConst(); ok && v < 0 && v != -v {
			if v == -1 {
				if len(e.Args) == 2 {
					return e.Args[1], true
				}
				return New(OpMul, e.Args[1:]...), true
			}
			return New(OpMul, append([]*Expr{Int(-v)}, e.Args[1:]...)...), true
		}
	}
	return nil, false
}

// String prints e in a readable infix form ("4*s77", "s0 // 2", "Max(1, s3)").
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// precedence levels for printing
const (
	precOr = iota + 1
	precAnd
	precCmp
	precAdd
	precMul
	precUnary
	precPow
	precAtom
)

func (e *Expr) write(b *strings.Builder, outer int) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	infix := func(prec int, sep string) {
		if prec < outer {
			b.WriteByte('(')
		}
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			p := prec
			if i > 0 {
				p = prec + 1 // left-assoc: parenthesise equal-precedence right operands
			}
			a.write(b, p)
		}
		if prec < outer {
			b.WriteByte(')')
		}
	}
	switch e.Op {
	case OpInt:
		if e.Int < 0 && outer > precAdd {
			fmt.Fprintf(b, "(%d)", e.Int)
		} else {
			fmt.Fprintf(b, "%d", e.Int)
		}
	case OpRational:
		if outer > precMul {
			fmt.Fprintf(b, "(%s)", e.Rat.RatString())
		} else {
			b.WriteString(e.Rat.RatString())
		}
	case OpFloat:
		f, _ := e.Rat.Float64()
		fmt.Fprintf(b, "%g", f)
	case OpSymbol:
		b.WriteString(e.Name)
	case OpAdd:
		if precAdd < outer {
			b.WriteByte('(')
		}
		for i, a := range e.Args {
			if i > 0 {
				if neg, ok := a.negated(); ok {
					b.WriteString(" - ")
					neg.write(b, precAdd+1)
					continue
				}
				b.WriteString(" + ")
			}
			a.write(b, precAdd)
		}
		if precAdd < outer {
			b.WriteByte(')')
		}
	case OpMul:
		if len(e.Args) == 2 && e.Args[0].Op == OpInt && e.Args[0].Int == -1 {
			if precUnary < outer {
				b.WriteByte('(')
			}
			b.WriteByte('-')
			e.Args[1].write(b, precUnary)
			if precUnary < outer {
				b.WriteByte(')')
			}
			return
		}
		infix(precMul, "*")
	case OpPow:
		infix(precPow, "**")
	case OpFloorDiv:
		infix(precMul, " // ")
	case OpMod, OpPythonMod:
		infix(precMul, " % ")
	case OpIntTrueDiv, OpTrueDiv, OpCleanDiv:
		infix(precMul, " / ")
	case OpEq:
		infix(precCmp, " == ")
	case OpNe:
		infix(precCmp, " != ")
	case OpLt:
		infix(precCmp, " < ")
	case OpLe:
		infix(precCmp, " <= ")
	case OpGt:
		infix(precCmp, " > ")
	case OpGe:
		infix(precCmp, " >= ")
	case OpAnd:
		infix(precAnd, " & ")
	case OpOr:
		infix(precOr, " | ")
	default:
		b.WriteString(e.Op.String())
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(b, 0)
		}
		b.WriteByte(')')
	}
}
