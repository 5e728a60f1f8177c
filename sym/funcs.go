package sym

import (
	"fmt"
	"math/big"
)

// funcs maps a function name, as sympy srepr or torch prints it, to an Op.
var funcs = map[string]Op{
	"Add": OpAdd, "Mul": OpMul, "Pow": OpPow, "PowByNatural": OpPow, "FloatPow": OpPow,
	"FloorDiv": OpFloorDiv, "CeilDiv": OpCeilDiv, "Mod": OpMod, "PythonMod": OpPythonMod,
	"CleanDiv": OpCleanDiv, "IntTrueDiv": OpIntTrueDiv, "FloatTrueDiv": OpTrueDiv, "TrueDiv": OpTrueDiv,
	"floor": OpFloor, "FloorToInt": OpFloor, "ceiling": OpCeil, "CeilToInt": OpCeil,
	"TruncToInt": OpTrunc, "TruncToFloat": OpTrunc, "RoundToInt": OpRound, "Abs": OpAbs,
	"Max": OpMax, "Min": OpMin, "ToFloat": OpToFloat,
	"Eq": OpEq, "Equality": OpEq, "Ne": OpNe, "Unequality": OpNe,
	"Lt": OpLt, "StrictLessThan": OpLt, "Le": OpLe, "LessThan": OpLe,
	"Gt": OpGt, "StrictGreaterThan": OpGt, "Ge": OpGe, "GreaterThan": OpGe,
	"And": OpAnd, "Or": OpOr, "Not": OpNot,
	"Piecewise": OpPiecewise, "ExprCondPair": OpTuple, "Tuple": OpTuple,
}

func build(name string, args []*Expr, strs, kw []string) (*Expr, error) {
	n := func(k int) error {
		if len(args) != k || len(strs) != 0 {
			return fmt.Errorf("%s takes %d arguments", name, k)
		}
		return nil
	}
	switch name {
	case "Symbol", "Dummy":
		if len(strs) != 1 || len(args) != 0 || !isName(strs[0]) {
			return nil, fmt.Errorf("Symbol takes one name (an identifier: s0, u1)")
		}
		return &Expr{Op: OpSymbol, Name: strs[0], Flags: kw}, nil
	case "Integer", "int":
		if err := n(1); err != nil {
			return nil, err
		}
		if _, ok := args[0].IsConst(); !ok {
			return nil, fmt.Errorf("Integer of a non-integer")
		}
		return args[0], nil
	case "Rational":
		if err := n(2); err != nil {
			return nil, err
		}
		a, ok1 := args[0].IsConst()
		b, ok2 := args[1].IsConst()
		if !ok1 || !ok2 || b == 0 {
			return nil, fmt.Errorf("bad Rational")
		}
		return &Expr{Op: OpRational, Rat: big.NewRat(a, b)}, nil
	case "Float":
		var text string
		switch {
		case len(strs) == 1 && len(args) == 0:
			text = strs[0]
		case len(strs) == 0 && len(args) == 1 && (args[0].Op == OpFloat || args[0].Op == OpInt):
			if args[0].Op == OpInt {
				return &Expr{Op: OpFloat, Rat: new(big.Rat).SetInt64(args[0].Int)}, nil
			}
			return args[0], nil
		default:
			return nil, fmt.Errorf("bad Float")
		}
		return parseFloat(text)
	case "Identity":
		if err := n(1); err != nil {
			return nil, err
		}
		return args[0], nil
	case "ModularIndexing": // (x // div) % mod
		if err := n(3); err != nil {
			return nil, err
		}
		return New(OpPythonMod, New(OpFloorDiv, args[0], args[1]), args[2]), nil
	case "Where":
		if err := n(3); err != nil {
			return nil, err
		}
		return New(OpPiecewise, New(OpTuple, args[1], args[0]), New(OpTuple, args[2], Int(1))), nil
	}
	op, ok := funcs[name]
	if !ok {
		return nil, fmt.Errorf("unknown function %s", name)
	}
	if len(strs) != 0 {
		return nil, fmt.Errorf("%s takes no string arguments", name)
	}
	if err := checkArity(name, op, len(args)); err != nil {
		return nil, err
	}
	return New(op, args...), nil
}

// isName reports whether s is an identifier, as torch names its symbols
// and as the str form spells them, and not one of the str form's
// constants.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	switch s {
	case "true", "True", "false", "False", "oo", "zoo", "nan", "int_oo":
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

// checkArity checks the number of arguments of a function: what Eval and
// the printer need, so that a malformed expression is a parse error.
func checkArity(name string, op Op, n int) error {
	want := 2
	switch op {
	case OpAdd, OpMul, OpMax, OpMin, OpAnd, OpOr, OpPiecewise:
		if n == 0 {
			return fmt.Errorf("%s takes at least one argument", name)
		}
		return nil
	case OpFloor, OpCeil, OpTrunc, OpRound, OpAbs, OpToFloat, OpNot:
		want = 1
	}
	if n != want {
		return fmt.Errorf("%s takes %d arguments, has %d", name, want, n)
	}
	return nil
}
