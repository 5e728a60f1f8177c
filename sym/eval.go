package sym

import (
	"fmt"
	"math/big"
)

// maxBits bounds intermediate values during evaluation, so that an
// adversarial Pow cannot allocate unbounded memory.
const maxBits = 4096

// Eval computes e for the given symbol values. The result must be an
// integer that fits int64; booleans evaluate to 1 and 0.
func (e *Expr) Eval(bindings map[string]int64) (int64, error) {
	r, err := e.EvalRat(bindings)
	if err != nil {
		return 0, err
	}
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("sym: %v = %s is not an int64", e, r.RatString())
	}
	return r.Num().Int64(), nil
}

// EvalRat computes e exactly as a rational number (Float constants are
// taken at their exact binary value).
func (e *Expr) EvalRat(bindings map[string]int64) (*big.Rat, error) {
	return e.eval(bindings, 0)
}

func (e *Expr) eval(env map[string]int64, depth int) (*big.Rat, error) {
	if e == nil {
		return nil, fmt.Errorf("sym: nil expression")
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("sym: expression nested deeper than %d", maxDepth)
	}
	args := make([]*big.Rat, len(e.Args))
	if e.Op != OpPiecewise {
		for i, a := range e.Args {
			v, err := a.eval(env, depth+1)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
	}
	need := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("sym: %v takes %d arguments, has %d", e.Op, n, len(args))
		}
		return nil
	}
	var r *big.Rat
	switch e.Op {
	case OpInt:
		return new(big.Rat).SetInt64(e.Int), nil
	case OpRational, OpFloat:
		if e.Rat == nil {
			return nil, fmt.Errorf("sym: %v without a value", e.Op)
		}
		return new(big.Rat).Set(e.Rat), nil
	case OpSymbol:
		v, ok := env[e.Name]
		if !ok {
			return nil, fmt.Errorf("sym: symbol %s has no value", e.Name)
		}
		return new(big.Rat).SetInt64(v), nil
	case OpAdd, OpMul:
		if len(args) == 0 {
			return nil, fmt.Errorf("sym: %v with no arguments", e.Op)
		}
		r = new(big.Rat).Set(args[0])
		for _, a := range args[1:] {
			if e.Op == OpAdd {
				r.Add(r, a)
			} else {
				r.Mul(r, a)
			}
		}
	case OpPow:
		if err := need(2); err != nil {
			return nil, err
		}
		var err error
		if r, err = pow(args[0], args[1]); err != nil {
			return nil, fmt.Errorf("sym: %v: %w", e, err)
		}
	case OpFloorDiv, OpCeilDiv, OpMod, OpPythonMod, OpCleanDiv, OpIntTrueDiv, OpTrueDiv:
		if err := need(2); err != nil {
			return nil, err
		}
		if args[1].Sign() == 0 {
			return nil, fmt.Errorf("sym: division by zero in %v", e)
		}
		q := new(big.Rat).Quo(args[0], args[1])
		switch e.Op {
		case OpFloorDiv:
			r = floor(q)
		case OpCeilDiv:
			r = ceil(q)
		case OpMod, OpPythonMod:
			r = new(big.Rat).Sub(args[0], new(big.Rat).Mul(args[1], floor(q)))
		default:
			r = q
		}
	case OpFloor, OpCeil, OpTrunc, OpRound, OpAbs, OpToFloat, OpNot:
		if err := need(1); err != nil {
			return nil, err
		}
		x := args[0]
		switch e.Op {
		case OpFloor:
			r = floor(x)
		case OpCeil:
			r = ceil(x)
		case OpTrunc:
			if x.Sign() < 0 {
				r = ceil(x)
			} else {
				r = floor(x)
			}
		case OpRound:
			r = roundHalfEven(x)
		case OpAbs:
			r = new(big.Rat).Abs(x)
		case OpToFloat:
			r = x
		case OpNot:
			r = boolRat(x.Sign() == 0)
		}
	case OpMax, OpMin:
		if len(args) == 0 {
			return nil, fmt.Errorf("sym: %v with no arguments", e.Op)
		}
		r = args[0]
		for _, a := range args[1:] {
			if c := a.Cmp(r); (e.Op == OpMax && c > 0) || (e.Op == OpMin && c < 0) {
				r = a
			}
		}
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		if err := need(2); err != nil {
			return nil, err
		}
		c := args[0].Cmp(args[1])
		r = boolRat(map[Op]bool{OpEq: c == 0, OpNe: c != 0, OpLt: c < 0, OpLe: c <= 0, OpGt: c > 0, OpGe: c >= 0}[e.Op])
	case OpAnd, OpOr:
		res := e.Op == OpAnd
		for _, a := range args {
			if e.Op == OpAnd {
				res = res && a.Sign() != 0
			} else {
				res = res || a.Sign() != 0
			}
		}
		r = boolRat(res)
	case OpPiecewise:
		for _, pair := range e.Args {
			if pair.Op != OpTuple || len(pair.Args) != 2 {
				return nil, fmt.Errorf("sym: Piecewise needs (value, condition) pairs")
			}
			c, err := pair.Args[1].eval(env, depth+1)
			if err != nil {
				return nil, err
			}
			if c.Sign() != 0 {
				return pair.Args[0].eval(env, depth+1)
			}
		}
		return nil, fmt.Errorf("sym: no Piecewise condition holds in %v", e)
	default:
		return nil, fmt.Errorf("sym: cannot evaluate %v", e.Op)
	}
	if r.Num().BitLen() > maxBits || r.Denom().BitLen() > maxBits {
		return nil, fmt.Errorf("sym: value of %v exceeds %d bits", e, maxBits)
	}
	return r, nil
}

func boolRat(b bool) *big.Rat {
	if b {
		return big.NewRat(1, 1)
	}
	return new(big.Rat)
}

func floor(x *big.Rat) *big.Rat {
	// big.Int.Div is Euclidean; with a positive denominator that is floor.
	return new(big.Rat).SetInt(new(big.Int).Div(x.Num(), x.Denom()))
}

func ceil(x *big.Rat) *big.Rat {
	f := floor(x)
	if f.Cmp(x) != 0 {
		f.Add(f, big.NewRat(1, 1))
	}
	return f
}

func roundHalfEven(x *big.Rat) *big.Rat {
	f := floor(x)
	diff := new(big.Rat).Sub(x, f)
	switch diff.Cmp(big.NewRat(1, 2)) {
	case 1:
		return f.Add(f, big.NewRat(1, 1))
	case 0:
		if f.Num().Bit(0) == 1 {
			return f.Add(f, big.NewRat(1, 1))
		}
	}
	return f
}

func pow(base, exp *big.Rat) (*big.Rat, error) {
	if !exp.IsInt() || !exp.Num().IsInt64() {
		return nil, fmt.Errorf("non-integer exponent %s", exp.RatString())
	}
	n := exp.Num().Int64()
	neg := n < 0
	if neg {
		n = -n
	}
	bits := int64(max(base.Num().BitLen(), base.Denom().BitLen()))
	if bits > 1 && n > maxBits/bits { // |base| ∉ {0, 1}: the result would be too large
		return nil, fmt.Errorf("power too large")
	}
	num := new(big.Int).Exp(base.Num(), big.NewInt(n), nil)
	den := new(big.Int).Exp(base.Denom(), big.NewInt(n), nil)
	if neg {
		if num.Sign() == 0 {
			return nil, fmt.Errorf("zero to a negative power")
		}
		num, den = den, num
	}
	return new(big.Rat).SetFrac(num, den), nil
}
