package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// histogram and histogramdd: bin edges given as tensors, or as counts
// over a range (the data's min and max by default, widened by ½ when they
// are equal, [0, 1] for empty input) spaced with linspace; a value goes to
// the last edge not above it (the rightmost edge belongs to the last bin),
// values outside the edges or NaN are dropped. density divides by the
// total and by each bin's volume.

func init() {
	lower("aten::histogram.bin_ct", lowerHistogram)
	lower("aten::histogram.bins_tensor", lowerHistogram)
	for _, s := range []string{
		"histogramdd(Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)",
		"histogramdd.int_bins(Tensor self, int bins, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)",
		"histogramdd.TensorList_bins(Tensor self, Tensor[] bins, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)",
	} {
		name := "aten::" + s[:indexByte(s, '(')]
		Register(Entry{Name: name, Kind: Lowered, Schema: s, Lower: lowerHistogramDD})
	}
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return len(s)
}

func lowerHistogram(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	pts := c.Reshape(x, []int64{numelOf(c.Shape(x)), 1})
	var edges []*stablehlo.Value
	var err error
	if b := a.Value("bins"); b.Kind == KTensor {
		edges = []*stablehlo.Value{a.Tensor("bins")}
	} else {
		edges, err = binEdges(c, pts, []int64{a.Int("bins")}, a)
	}
	if err != nil {
		return nil, err
	}
	hist, err := histogramOf(c, pts, edges, a)
	if err != nil {
		return nil, err
	}
	return []Value{TensorValue(hist), TensorValue(edges[0])}, nil
}

func lowerHistogramDD(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	s := c.Shape(x)
	if len(s) < 2 {
		return nil, c.Errorf("torch.histogramdd: input tensor should have at least 2 dimensions, but got %d", len(s))
	}
	n := s[len(s)-1]
	pts := c.Reshape(x, []int64{numelOf(s[:len(s)-1]), n})
	var edges []*stablehlo.Value
	var err error
	b := a.Value("bins")
	switch {
	case b.Kind == KList && len(b.List) > 0 && b.List[0].Kind == KTensor:
		edges = a.Tensors("bins")
	case b.Kind == KInt:
		cts := make([]int64, n)
		for i := range cts {
			cts[i] = b.I
		}
		edges, err = binEdges(c, pts, cts, a)
	default:
		edges, err = binEdges(c, pts, a.Ints("bins"), a)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(edges)) != n {
		return nil, c.Errorf("torch.histogramdd: expected %d sequences of bin edges for a %d-dimensional histogram but got %d", n, n, len(edges))
	}
	hist, err := histogramOf(c, pts, edges, a)
	if err != nil {
		return nil, err
	}
	return []Value{TensorValue(hist), TensorsValue(edges)}, nil
}

// binEdges spaces cts[d]+1 edges over each column of pts [M, N].
func binEdges(c *LowerCtx, pts *stablehlo.Value, cts []int64, a *Args) ([]*stablehlo.Value, error) {
	dt := c.DType(pts)
	if !dt.IsFloat() {
		return nil, c.Errorf("torch.histogram: input tensor must be of a floating dtype, got %s", dt.Torch())
	}
	s := c.Shape(pts)
	m, n := s[0], s[1]
	if int64(len(cts)) != n {
		return nil, c.Errorf("torch.histogramdd: expected %d bin counts, got %d", n, len(cts))
	}
	rng, hasRange := a.OptFloats("range")
	if hasRange && int64(len(rng)) != 2*n {
		return nil, c.Errorf("torch.histogramdd: for a %d-dimensional histogram range should have %d elements, but got %d", n, 2*n, len(rng))
	}
	w := c.Wide()
	out := make([]*stablehlo.Value, n)
	for d := int64(0); d < n; d++ {
		if cts[d] <= 0 {
			return nil, c.Errorf("torch.histogram(): bins must be > 0, but got %d for dimension %d", cts[d], d)
		}
		var lo, hi *stablehlo.Value
		switch {
		case hasRange:
			lo, hi = c.Splat(w, nil, rng[2*d]), c.Splat(w, nil, rng[2*d+1])
		case m == 0:
			lo, hi = c.Splat(w, nil, 0), c.Splat(w, nil, 1)
		default:
			col := c.Reshape(sliceDim(c, pts, 1, d, 1, 1), []int64{m})
			lo = c.Convert(c.ReduceWith(col, []int64{0}, "minimum", highestConst(c, dt)), w)
			hi = c.Convert(c.ReduceWith(col, []int64{0}, "maximum", lowestConst(c, dt)), w)
		}
		same := c.Compare("EQ", lo, hi)
		lo = c.Select(same, c.Binary("subtract", lo, c.Splat(w, nil, 0.5)), lo)
		hi = c.Select(same, c.Binary("add", hi, c.Splat(w, nil, 0.5)), hi)
		out[d] = c.Convert(spacePoints(c, lo, hi, cts[d]+1, dt, false, 0), dt)
	}
	return out, nil
}

// histogramOf counts (or weighs) the rows of pts [M, N] into the bins
// the edges define.
func histogramOf(c *LowerCtx, pts *stablehlo.Value, edges []*stablehlo.Value, a *Args) (*stablehlo.Value, error) {
	dt := c.DType(pts)
	s := c.Shape(pts)
	m := s[0]
	weight := a.OptTensor("weight")
	density := a.Bool("density")
	if a.Err() != nil {
		return nil, a.Err()
	}
	var nb []int64
	var flat, valid *stablehlo.Value
	for d, e := range edges {
		if c.Rank(e) != 1 || c.Shape(e)[0] < 1 || c.DType(e) != dt {
			return nil, c.Errorf("torch.histogramdd: bins tensor for dimension %d should be a non-empty 1-d tensor of the input's dtype", d)
		}
		ne := c.Shape(e)[0]
		nbins := ne - 1
		nb = append(nb, nbins)
		col := c.Reshape(sliceDim(c, pts, 1, int64(d), 1, 1), []int64{m})
		pair := []int64{m, ne}
		le := c.Compare("LE", c.BroadcastInDim(e, pair, []int64{1}), c.BroadcastInDim(col, pair, []int64{0}))
		pos := c.Binary("subtract", c.Reduce(c.Convert(le, dtype.I64), []int64{1}, "add", 0), c.SplatInt(dtype.I64, []int64{m}, 1))
		pos = c.Binary("minimum", pos, c.SplatInt(dtype.I64, []int64{m}, max(nbins-1, 0)))
		first := c.BroadcastTo(c.Reshape(sliceDim(c, e, 0, 0, 1, 1), nil), []int64{m})
		last := c.BroadcastTo(c.Reshape(sliceDim(c, e, 0, ne-1, 1, 1), nil), []int64{m})
		in := c.Binary("and", c.Compare("GE", col, first), c.Compare("LE", col, last))
		if nbins == 0 {
			in = c.SplatInt(dtype.Bool, []int64{m}, 0)
		}
		if flat == nil {
			flat, valid = pos, in
		} else {
			flat = c.Binary("add", c.Binary("multiply", flat, c.SplatInt(dtype.I64, []int64{m}, nbins)), pos)
			valid = c.Binary("and", valid, in)
		}
	}
	total := numelOf(nb)
	pair := []int64{total, m}
	hit := c.Binary("and", c.Compare("EQ", c.Iota(dtype.I64, pair, 0), c.BroadcastInDim(flat, pair, []int64{1})),
		c.BroadcastInDim(valid, pair, []int64{1}))
	w := OpMath(dt)
	var contrib *stablehlo.Value
	if weight != nil {
		if numelOf(c.Shape(weight)) != m {
			return nil, c.Errorf("torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got weight with shape %v", c.Shape(weight))
		}
		wt := c.BroadcastInDim(c.Convert(c.Reshape(weight, []int64{m}), w), pair, []int64{1})
		contrib = c.Select(hit, wt, c.Splat(w, pair, 0))
	} else {
		contrib = c.Convert(hit, w)
	}
	hist := c.Reduce(contrib, []int64{1}, "add", 0) // [total]
	if density {
		sum := c.Reduce(hist, []int64{0}, "add", 0)
		hist = c.Binary("divide", hist, c.BroadcastTo(sum, []int64{total}))
		vol := c.Splat(w, nb, 1)
		for d, e := range edges {
			ne := c.Shape(e)[0]
			ew := c.Convert(e, w)
			width := c.Binary("subtract", sliceDim(c, ew, 0, 1, ne-1, 1), sliceDim(c, ew, 0, 0, ne-1, 1))
			vol = c.Binary("multiply", vol, c.BroadcastInDim(width, nb, []int64{int64(d)}))
		}
		hist = c.Binary("divide", hist, c.Reshape(vol, []int64{total}))
	}
	return c.Convert(c.Reshape(hist, nb), dt), nil
}
