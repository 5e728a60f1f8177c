package aten

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The files of the registry's own families (pointwise, reductions, casts,
// creation, symbolic ops); the view/index/nn families have their own test.
var ownFamilies = []string{"pointwise*.go", "binary*.go", "unary*.go", "compare*.go", "reduce*.go",
	"cast*.go", "creation*.go", "sym*.go", "misc*.go"}

func ownEntry(e *Entry) bool {
	for _, pat := range ownFamilies {
		if ok, _ := filepath.Match(pat, e.File); ok {
			return true
		}
	}
	return false
}

var robustTypes = []*stablehlo.TensorType{
	stablehlo.Tensor(dtype.F32, 2, 3), stablehlo.Tensor(dtype.I64), stablehlo.Tensor(dtype.Bool, 0, 4),
	stablehlo.Tensor(dtype.BF16, 1, 2, 3), stablehlo.Tensor(dtype.U8, 3), stablehlo.Tensor(dtype.C64, 2),
	stablehlo.Tensor(dtype.I8, 4, 1),
}

// robustValue draws an argument of (roughly) the parameter's type, often
// out of range or of an awkward dtype.
func robustValue(rng *rand.Rand, p Param) Value {
	if p.Type.Optional && rng.Intn(4) == 0 {
		return None()
	}
	tensor := func() Value { return TensorValue(&stablehlo.Value{Type: robustTypes[rng.Intn(len(robustTypes))]}) }
	switch {
	case p.Type.Base == "Tensor" && p.Type.List:
		return ListValue(tensor(), tensor())
	case p.Type.Base == "Tensor":
		if rng.Intn(5) == 0 {
			return FloatValue(2.5) // a Python scalar in a Tensor slot
		}
		return tensor()
	case p.Type.List:
		return IntsValue([]int64{int64(rng.Intn(7) - 3), int64(rng.Intn(5))})
	case p.Type.Base == "int" || p.Type.Base == "SymInt":
		return IntValue(int64(rng.Intn(11) - 5))
	case p.Type.Base == "float":
		return FloatValue(rng.NormFloat64())
	case p.Type.Base == "bool":
		return BoolValue(rng.Intn(2) == 0)
	case p.Type.Base == "Scalar":
		return []Value{IntValue(-3), FloatValue(0.5), BoolValue(true), ComplexValue(1i)}[rng.Intn(4)]
	case p.Type.Base == "str":
		return StrValue([]string{"none", "tanh", "floor", "trunc", "bogus"}[rng.Intn(5)])
	case p.Type.Base == "ScalarType":
		return DTypeValue([]dtype.DType{dtype.I8, dtype.F16, dtype.Bool, dtype.C64, dtype.U8}[rng.Intn(5)])
	}
	if p.HasDefault {
		return p.Default
	}
	return None()
}

// Bad arguments give errors, never panics, in every lowering of these
// families.
func TestOwnFamiliesNoPanic(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n := 0
	for _, e := range Entries() {
		if !ownEntry(e) || e.Lower == nil {
			continue
		}
		n++
		callRandomly(t, rng, e, 100)
	}
	if n < 200 {
		t.Errorf("only %d entries of the own families found", n)
	}
}

// callRandomly lowers e times times on random arguments (robustValue) and
// reports any panic; errors are expected.
func callRandomly(t *testing.T, rng *rand.Rand, e *Entry, times int) {
	t.Helper()
	s, err := e.parsed()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < times; i++ {
		vals := make([]Value, len(s.Params))
		for j, p := range s.Params {
			vals[j] = robustValue(rng, p)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked with %v on %v", e.Name, r, vals)
				}
			}()
			_, _ = e.Call(NewLowerCtx(&stablehlo.Block{}), &Args{Schema: s, Values: vals})
		}()
	}
}
