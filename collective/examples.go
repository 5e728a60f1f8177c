package collective

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Examples are calls on world ranks covering every kind, every reduction
// and three dtypes: what the tests run on every backend.
func Examples(world int) []Call {
	var cs []Call
	for _, d := range []dtype.DType{dtype.F32, dtype.BF16, dtype.I64} {
		for _, op := range []string{Sum, Avg, Product, Min, Max} {
			cs = append(cs, Call{Kind: AllReduce, Reduce: op, DType: d, Shape: []int64{2, 3}, World: world})
		}
		cs = append(cs,
			Call{Kind: AllGather, DType: d, Shape: []int64{2, 3}, World: world},
			Call{Kind: ReduceScatter, Reduce: Sum, DType: d, Shape: []int64{int64(2 * world), 3}, World: world},
			Call{Kind: ReduceScatter, Reduce: Max, DType: d, Shape: []int64{int64(world)}, World: world},
			Call{Kind: AllToAll, DType: d, Shape: []int64{int64(world), 2}, World: world},
			Call{Kind: Broadcast, DType: d, Shape: []int64{5}, World: world, Root: world - 1},
			Call{Kind: Permute, DType: d, Shape: []int64{3}, World: world, Pairs: ring(world)},
		)
	}
	cs = append(cs, Call{Kind: Barrier, World: world}, Call{Kind: Broadcast, DType: dtype.F32, Shape: []int64{2}, World: world})
	return cs
}

func ring(n int) [][2]int {
	var ps [][2]int
	for r := 0; r < n; r++ {
		ps = append(ps, [2]int{r, (r + 1) % n})
	}
	return ps
}

func (c Call) String() string {
	return fmt.Sprintf("%s(%s) %s%v root %d", c.Kind, c.Reduce, c.DType, c.Shape, c.Root)
}

// ExampleInputs are every rank's tensor for c: small integers, rank r's
// those of rank 0 plus r.
func ExampleInputs(c Call) []*literal.Literal {
	c = c.normal()
	out := make([]*literal.Literal, c.World)
	for r := range out {
		l, _ := literal.New(c.DType, c.Shape)
		for i := 0; i < l.Len(); i++ {
			l.SetFloat64(i, float64(i%5+1+r))
		}
		out[r] = l
	}
	return out
}
