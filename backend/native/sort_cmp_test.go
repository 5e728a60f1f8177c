package native

import (
	"math"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// jaxFloatComparator builds JAX's float sort comparator: both sides have
// -0 mapped to +0 and every NaN to one quiet NaN, then a TOTALORDER LT;
// ties are broken by a second, integer key (LT, SIGNED) joined with and/or.
func jaxFloatComparator(dt dtype.DType) *stablehlo.Region {
	t, bt, it := stablehlo.Tensor(dt), stablehlo.Tensor(dtype.Bool), stablehlo.Tensor(dtype.I32)
	args := []*stablehlo.Value{{Type: t}, {Type: t, Index: 1}, {Type: it, Index: 2}, {Type: it, Index: 3}}
	var ops []*stablehlo.Op
	add := func(name string, rt stablehlo.Type, attrs []stablehlo.NamedAttr, in ...*stablehlo.Value) *stablehlo.Value {
		op := stablehlo.NewOp(name, in, []stablehlo.Type{rt}, attrs)
		ops = append(ops, op)
		return op.Result()
	}
	cst := func(v float64) *stablehlo.Value {
		l, _ := literal.New(dt, nil)
		l.SetFloat64(0, v)
		return add("stablehlo.constant", t, []stablehlo.NamedAttr{{Name: "value", Value: &stablehlo.DenseAttr{Type: t, Value: l}}})
	}
	cmp := func(dir, ct string, a, b *stablehlo.Value) *stablehlo.Value {
		return add("stablehlo.compare", bt, []stablehlo.NamedAttr{
			{Name: "compare_type", Value: &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_type", Value: ct}},
			{Name: "comparison_direction", Value: &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: dir}}}, a, b)
	}
	canon := func(x *stablehlo.Value) *stablehlo.Value {
		z := add("stablehlo.select", t, nil, cmp("EQ", "FLOAT", x, cst(0)), cst(0), x)
		return add("stablehlo.select", t, nil, cmp("NE", "FLOAT", x, x), cst(math.NaN()), z)
	}
	a, b := canon(args[0]), canon(args[1])
	lt := cmp("LT", "TOTALORDER", a, b)
	eq := cmp("EQ", "TOTALORDER", a, b)
	lt2 := cmp("LT", "SIGNED", args[2], args[3])
	res := add("stablehlo.or", bt, nil, lt, add("stablehlo.and", bt, nil, eq, add("stablehlo.not", bt, nil, add("stablehlo.not", bt, nil, lt2))))
	ops = append(ops, stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{res}, nil, nil))
	return &stablehlo.Region{Blocks: []*stablehlo.Block{{Args: args, Ops: ops}}}
}

// The compiled comparator answers as the region run op by op does.
func TestCompiledComparatorMatchesRegion(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	specials := []float64{math.NaN(), math.Copysign(math.NaN(), -1), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 2.5}
	for _, dt := range []dtype.DType{dtype.F32, dtype.BF16, dtype.F64, dtype.F8E4M3FN} {
		r := jaxFloatComparator(dt)
		prog := compileCmp(r)
		if prog == nil {
			t.Fatalf("%v: comparator not compiled", dt)
		}
		for n := 0; n < 400; n++ {
			args := make([]Value, 4)
			for i := 0; i < 2; i++ {
				f, _ := literal.New(dt, nil)
				f.SetFloat64(0, specials[rng.Intn(len(specials))])
				k, _ := literal.New(dtype.I32, nil)
				k.SetInt64(0, int64(rng.Intn(3)-1))
				args[i], args[2+i] = f, k
			}
			for i, v := range args {
				prog.slots[i].Data = v.(*literal.Literal).Data
			}
			got := prog.run()
			res, err := mvEnv{}.CallRegion(r, args)
			if err != nil {
				t.Fatal(err)
			}
			want, err := mvPredicate(res)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%v: compiled comparator(%v, %v, %v, %v) = %v, region gives %v", dt,
					args[0].(*literal.Literal).Float64(0), args[1].(*literal.Literal).Float64(0),
					args[2].(*literal.Literal).Int64(0), args[3].(*literal.Literal).Int64(0), got, want)
			}
		}
	}
}
