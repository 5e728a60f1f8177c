package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// View and reshape ops. Tensors are values, so every view is a copy with
// the view's shape: reshape for size changes, transpose for permutations,
// broadcast_in_dim for expand. Memory formats and strides do not exist at
// this level; contiguous/clone/alias are identities.

func init() {
	for _, name := range []string{"aten::view", "aten::_unsafe_view", "aten::reshape", "aten::view_copy"} {
		Register(Entry{Name: name, Kind: Lowered, Lower: lowerView})
	}
	for _, name := range []string{"aten::contiguous", "aten::clone", "aten::alias", "aten::alias_copy"} {
		Register(Entry{Name: name, Kind: Lowered, Lower: lowerIdentity})
	}
	Register(Entry{Name: "aten::flatten.using_ints", Kind: Lowered, Lower: lowerFlatten})
	Register(Entry{Name: "aten::unflatten.int", Kind: Lowered, Lower: lowerUnflatten})
	Register(Entry{Name: "aten::squeeze", Kind: Lowered, Lower: lowerSqueeze})
	Register(Entry{Name: "aten::squeeze.dim", Kind: Lowered, Lower: lowerSqueeze})
	Register(Entry{Name: "aten::squeeze.dims", Kind: Lowered, Lower: lowerSqueeze})
	Register(Entry{Name: "aten::unsqueeze", Kind: Lowered, Lower: lowerUnsqueeze})
	Register(Entry{Name: "aten::expand", Kind: Lowered, Lower: lowerExpand})
	Register(Entry{Name: "aten::expand_copy", Kind: Lowered, Lower: lowerExpand})
	Register(Entry{Name: "aten::expand_as", Kind: Lowered, Lower: lowerExpandAs})
	Register(Entry{Name: "aten::permute", Kind: Lowered, Lower: lowerPermute})
	Register(Entry{Name: "aten::permute_copy", Kind: Lowered, Lower: lowerPermute})
	Register(Entry{Name: "aten::transpose.int", Kind: Lowered, Lower: lowerTranspose})
	Register(Entry{Name: "aten::t", Kind: Lowered, Lower: lowerT})
	Register(Entry{Name: "aten::movedim.int", Kind: Lowered, Lower: lowerMovedim})
	Register(Entry{Name: "aten::movedim.intlist", Kind: Lowered, Lower: lowerMovedim})
	// The *_copy forms (what view ops become in some functionalized graphs).
	lower("aten::transpose_copy.int", lowerTranspose)
	lower("aten::t_copy", lowerT)
	lower("aten::unsqueeze_copy", lowerUnsqueeze)
	lower("aten::squeeze_copy", lowerSqueeze)
	lower("aten::squeeze_copy.dim", lowerSqueeze)
	lower("aten::squeeze_copy.dims", lowerSqueeze)
}

func lowerIdentity(c *LowerCtx, a *Args) ([]Value, error) {
	return one(a.Tensor("self")), nil
}

func lowerView(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	size := a.Ints(a.Schema.Params[1].Name)
	if x == nil || a.Err() != nil {
		return nil, a.Err()
	}
	shape, err := inferViewShape(numelOf(c.Shape(x)), size)
	if err != nil {
		return nil, err
	}
	return one(c.Reshape(x, shape)), nil
}

func lowerFlatten(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	start, end := a.Int("start_dim"), a.Int("end_dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) == 0 {
		return one(c.Reshape(x, []int64{1})), nil
	}
	s, err := canonDim(start, len(shape))
	if err != nil {
		return nil, err
	}
	e, err := canonDim(end, len(shape))
	if err != nil {
		return nil, err
	}
	if s > e {
		return nil, c.Errorf("flatten() has invalid args: start_dim %d cannot come after end_dim %d", start, end)
	}
	out := append([]int64(nil), shape[:s]...)
	out = append(out, numelOf(shape[s:e+1]))
	out = append(out, shape[e+1:]...)
	return one(c.Reshape(x, out)), nil
}

func lowerUnflatten(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim, sizes := a.Int("dim"), a.Ints("sizes")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return nil, c.Errorf("unflatten: cannot unflatten a 0-d tensor")
	}
	inner, err := inferViewShape(shape[d], sizes)
	if err != nil {
		return nil, err
	}
	out := append([]int64(nil), shape[:d]...)
	out = append(out, inner...)
	out = append(out, shape[d+1:]...)
	return one(c.Reshape(x, out)), nil
}

func lowerSqueeze(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	shape := c.Shape(x)
	drop := map[int]bool{}
	switch {
	case a.Schema.Param("dim") < 0:
		for i, s := range shape {
			if s == 1 {
				drop[i] = true
			}
		}
	case a.Schema.Overload == "dim":
		d, err := canonDim(a.Int("dim"), len(shape))
		if err != nil {
			return nil, err
		}
		drop[d] = true
	default:
		ds, err := canonDims(a.Ints("dim"), len(shape))
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			drop[d] = true
		}
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	var out []int64
	for i, s := range shape {
		if drop[i] && s == 1 {
			continue
		}
		out = append(out, s)
	}
	return one(c.Reshape(x, out)), nil
}

func lowerUnsqueeze(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape)+1)
	if err != nil {
		return nil, err
	}
	out := append([]int64(nil), shape[:d]...)
	out = append(out, 1)
	out = append(out, shape[d:]...)
	return one(c.Reshape(x, out)), nil
}

// expandTo implements expand(size): -1 keeps a dim, new dims lead, only
// size-1 dims grow.
func expandTo(c *LowerCtx, x *stablehlo.Value, size []int64) (*stablehlo.Value, error) {
	shape := c.Shape(x)
	if len(size) < len(shape) {
		return nil, c.Errorf("expand: the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", len(size), len(shape))
	}
	off := len(size) - len(shape)
	out := make([]int64, len(size))
	for i, s := range size {
		if i < off {
			if s < 0 {
				return nil, c.Errorf("expand: the expanded size %d is not allowed in a leading, non-existing dimension %d", s, i)
			}
			out[i] = s
			continue
		}
		in := shape[i-off]
		switch {
		case s == -1:
			out[i] = in
		case s < 0:
			return nil, c.Errorf("expand: invalid size %d", s)
		case in == s || in == 1:
			out[i] = s
		default:
			return nil, c.Errorf("expand: the expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d; target sizes %v, tensor sizes %v", s, in, i, size, shape)
		}
	}
	return c.BroadcastTo(x, out), nil
}

func lowerExpand(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	size := a.Ints("size")
	if a.Err() != nil {
		return nil, a.Err()
	}
	v, err := expandTo(c, x, size)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerExpandAs(c *LowerCtx, a *Args) ([]Value, error) {
	x, other := a.Tensor("self"), a.Tensor("other")
	if a.Err() != nil {
		return nil, a.Err()
	}
	v, err := expandTo(c, x, c.Shape(other))
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerPermute(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dims := a.Ints("dims")
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := c.Rank(x)
	if len(dims) != r {
		return nil, c.Errorf("permute: number of dims in %v does not match the tensor's rank %d", dims, r)
	}
	ds, err := canonDims(dims, r)
	if err != nil {
		return nil, err
	}
	perm := make([]int64, r)
	for i, d := range ds {
		perm[i] = int64(d)
	}
	return one(emitTranspose(c, x, perm)), nil
}

func transposeDims(c *LowerCtx, x *stablehlo.Value, d0, d1 int64) (*stablehlo.Value, error) {
	r := c.Rank(x)
	a, err := canonDim(d0, r)
	if err != nil {
		return nil, err
	}
	b, err := canonDim(d1, r)
	if err != nil {
		return nil, err
	}
	if r == 0 {
		return x, nil
	}
	perm := seqI64(r)
	perm[a], perm[b] = perm[b], perm[a]
	return emitTranspose(c, x, perm), nil
}

func lowerTranspose(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	d0, d1 := a.Int("dim0"), a.Int("dim1")
	if a.Err() != nil {
		return nil, a.Err()
	}
	v, err := transposeDims(c, x, d0, d1)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerT(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := c.Rank(x)
	if r > 2 {
		return nil, c.Errorf("t() expects a tensor with <= 2 dimensions, but self is %dD", r)
	}
	if r < 2 {
		return one(x), nil
	}
	return one(emitTranspose(c, x, []int64{1, 0})), nil
}

func lowerMovedim(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	var src, dst []int64
	if a.Schema.Overload == "int" {
		src, dst = []int64{a.Int("source")}, []int64{a.Int("destination")}
	} else {
		src, dst = a.Ints("source"), a.Ints("destination")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := c.Rank(x)
	if len(src) != len(dst) {
		return nil, c.Errorf("movedim: invalid source or destination dims: source (%v) and destination (%v) must have the same number of elements", src, dst)
	}
	s, err := canonDims(src, r)
	if err != nil {
		return nil, err
	}
	d, err := canonDims(dst, r)
	if err != nil {
		return nil, err
	}
	if r == 0 {
		return one(x), nil
	}
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = -1
	}
	used := make([]bool, r)
	for i := range s {
		perm[d[i]] = int64(s[i])
		used[s[i]] = true
	}
	rest := 0
	for i := range perm {
		if perm[i] >= 0 {
			continue
		}
		for used[rest] {
			rest++
		}
		perm[i] = int64(rest)
		used[rest] = true
	}
	return one(emitTranspose(c, x, perm)), nil
}
