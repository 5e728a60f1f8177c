package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Joining and rearranging: cat, stack, flip, roll, repeat, tile,
// tril/triu, pixel_shuffle/unshuffle, broadcast_tensors.

func init() {
	lower("aten::cat", lowerCat)
	lower("aten::concat", lowerCat)
	lower("aten::concatenate", lowerCat)
	lower("aten::stack", lowerStack)
	lower("aten::hstack", lowerHVStack)
	lower("aten::vstack", lowerHVStack)
	lower("aten::flip", lowerFlip)
	lower("aten::roll", lowerRoll)
	lower("aten::repeat", lowerRepeat)
	lower("aten::tile", lowerTile)
	lower("aten::tril", lowerTriangle)
	lower("aten::triu", lowerTriangle)
	lower("aten::pixel_shuffle", lowerPixelShuffle)
	lower("aten::pixel_unshuffle", lowerPixelShuffle)
	lower("aten::broadcast_tensors", lowerBroadcastTensors)
}

// catValues concatenates along dim with PyTorch's promotion across the
// inputs; 1-D empty tensors are skipped (legacy behaviour).
func catValues(c *LowerCtx, xs []*stablehlo.Value, dim int64) (*stablehlo.Value, error) {
	if len(xs) == 0 {
		return nil, c.Errorf("torch.cat(): expected a non-empty list of Tensors")
	}
	ops := make([]Operand, 0, len(xs))
	for i, x := range xs {
		if x == nil {
			return nil, c.Errorf("torch.cat(): tensor %d is missing", i)
		}
		ops = append(ops, TensorOperand(x))
	}
	dt := c.ResultType(ops...)
	var keep []*stablehlo.Value
	for _, x := range xs {
		s := c.Shape(x)
		if len(s) == 1 && s[0] == 0 {
			continue
		}
		keep = append(keep, x)
	}
	if len(keep) == 0 {
		return c.Convert(xs[0], dt), nil
	}
	ref := c.Shape(keep[0])
	if len(ref) == 0 {
		return nil, c.Errorf("zero-dimensional tensor cannot be concatenated")
	}
	d, err := canonDim(dim, len(ref))
	if err != nil {
		return nil, err
	}
	for i, x := range keep {
		s := c.Shape(x)
		if len(s) != len(ref) {
			return nil, c.Errorf("torch.cat(): tensors must have same number of dimensions: got %d and %d", len(ref), len(s))
		}
		for k := range s {
			if k != d && s[k] != ref[k] {
				return nil, c.Errorf("torch.cat(): sizes of tensors must match except in dimension %d; expected size %d but got size %d for tensor number %d in the list", d, ref[k], s[k], i)
			}
		}
		keep[i] = c.Convert(x, dt)
	}
	return emitConcat(c, keep, d), nil
}

func lowerCat(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	v, err := catValues(c, xs, dim)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerStack(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(xs) == 0 {
		return nil, c.Errorf("stack expects a non-empty TensorList")
	}
	ref := c.Shape(xs[0])
	d, err := canonDim(dim, len(ref)+1)
	if err != nil {
		return nil, err
	}
	parts := make([]*stablehlo.Value, len(xs))
	for i, x := range xs {
		s := c.Shape(x)
		if !sameShape(s, ref) {
			return nil, c.Errorf("stack expects each tensor to be equal size, but got %v at entry 0 and %v at entry %d", ref, s, i)
		}
		ns := append(append(append([]int64(nil), s[:d]...), 1), s[d:]...)
		parts[i] = c.Reshape(x, ns)
	}
	v, err := catValues(c, parts, int64(d))
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerHVStack(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(xs) == 0 {
		return nil, c.Errorf("%s expects a non-empty TensorList", a.Schema.Name)
	}
	parts := make([]*stablehlo.Value, len(xs))
	vertical := a.Schema.Name == "aten::vstack"
	dim := int64(0)
	for i, x := range xs {
		s := c.Shape(x)
		switch {
		case vertical && len(s) < 2:
			parts[i] = c.Reshape(x, []int64{1, numelOf(s)})
		case !vertical && len(s) == 0:
			parts[i] = c.Reshape(x, []int64{1})
		default:
			parts[i] = x
		}
	}
	if !vertical && c.Rank(parts[0]) > 1 {
		dim = 1
	}
	v, err := catValues(c, parts, dim)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerFlip(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dims := a.Ints("dims")
	if a.Err() != nil {
		return nil, a.Err()
	}
	ds, err := canonDims(dims, c.Rank(x))
	if err != nil {
		return nil, err
	}
	if c.Rank(x) == 0 {
		return one(x), nil
	}
	rev := make([]int64, len(ds))
	for i, d := range ds {
		rev[i] = int64(d)
	}
	return one(emitReverse(c, x, rev)), nil
}

// rollDim rotates x by shift along d.
func rollDim(c *LowerCtx, x *stablehlo.Value, d int, shift int64) *stablehlo.Value {
	n := c.Shape(x)[d]
	if n == 0 {
		return x
	}
	s := ((shift % n) + n) % n
	if s == 0 {
		return x
	}
	tail := sliceDim(c, x, d, n-s, s, 1)
	head := sliceDim(c, x, d, 0, n-s, 1)
	return emitConcat(c, []*stablehlo.Value{tail, head}, d)
}

func lowerRoll(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	shifts, dims := a.Ints("shifts"), a.Ints("dims")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(dims) == 0 {
		if len(shifts) != 1 {
			return nil, c.Errorf("roll: shifts (%v) must have one element when dims is empty", shifts)
		}
		flat := c.Reshape(x, []int64{numelOf(shape)})
		return one(c.Reshape(rollDim(c, flat, 0, shifts[0]), shape)), nil
	}
	if len(shifts) != len(dims) {
		return nil, c.Errorf("roll: shifts and dimensions must align. shifts: %d, dims: %d", len(shifts), len(dims))
	}
	for i, dim := range dims {
		d, err := canonDim(dim, len(shape))
		if err != nil {
			return nil, err
		}
		if len(shape) == 0 {
			continue
		}
		x = rollDim(c, x, d, shifts[i])
	}
	return one(x), nil
}

// repeatValue tiles x by reps (len(reps) >= rank): broadcast each dim to
// [rep, size] pairs and merge them.
func repeatValue(c *LowerCtx, x *stablehlo.Value, reps []int64) (*stablehlo.Value, error) {
	shape := c.Shape(x)
	if len(reps) < len(shape) {
		return nil, c.Errorf("Number of dimensions of repeat dims (%d) can not be smaller than number of dimensions of tensor (%d)", len(reps), len(shape))
	}
	for _, r := range reps {
		if r < 0 {
			return nil, c.Errorf("repeat: repeats can not be negative, got %v", reps)
		}
	}
	off := len(reps) - len(shape)
	full := make([]int64, len(reps))
	for i := range full {
		full[i] = 1
		if i >= off {
			full[i] = shape[i-off]
		}
	}
	x = c.Reshape(x, full)
	pairs := make([]int64, 0, 2*len(reps))
	dims := make([]int64, len(reps))
	out := make([]int64, len(reps))
	for i := range reps {
		pairs = append(pairs, reps[i], full[i])
		dims[i] = int64(2*i + 1)
		out[i] = reps[i] * full[i]
	}
	b := c.BroadcastInDim(x, pairs, dims)
	return c.Reshape(b, out), nil
}

func lowerRepeat(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	reps := a.Ints("repeats")
	if a.Err() != nil {
		return nil, a.Err()
	}
	v, err := repeatValue(c, x, reps)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerTile(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	reps := a.Ints("dims")
	if a.Err() != nil {
		return nil, a.Err()
	}
	for len(reps) < c.Rank(x) {
		reps = append([]int64{1}, reps...)
	}
	v, err := repeatValue(c, x, reps)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerTriangle(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	k := a.Int("diagonal")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	r := len(shape)
	if r < 2 {
		return nil, c.Errorf("%s: input tensor must have at least 2 dimensions", a.Schema.Name)
	}
	hw := []int64{shape[r-2], shape[r-1]}
	row := c.Iota(dtype.I64, hw, 0)
	col := c.Iota(dtype.I64, hw, 1)
	diff := c.Binary("subtract", col, row)
	dir := "LE"
	if a.Schema.Name == "aten::triu" {
		dir = "GE"
	}
	mask := c.Compare(dir, diff, c.SplatInt(dtype.I64, hw, k))
	mask = c.BroadcastTo(mask, shape)
	return one(c.Select(mask, x, c.Like(x, 0))), nil
}

func lowerPixelShuffle(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	unshuffle := a.Schema.Name == "aten::pixel_unshuffle"
	var f int64
	if unshuffle {
		f = a.Int("downscale_factor")
	} else {
		f = a.Int("upscale_factor")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	r := len(shape)
	if r < 3 || f <= 0 {
		return nil, c.Errorf("%s expects input of rank >= 3 and a positive factor, got %v and %d", a.Schema.Name, shape, f)
	}
	batch := shape[:r-3]
	C, H, W := shape[r-3], shape[r-2], shape[r-1]
	nb := int64(len(batch))
	var mid, out []int64
	var perm []int64
	if !unshuffle {
		if C%(f*f) != 0 {
			return nil, c.Errorf("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%d is not divisible by %d", C, f*f)
		}
		oc := C / (f * f)
		mid = append(append([]int64(nil), batch...), oc, f, f, H, W)
		perm = append(seqI64(int(nb)), nb, nb+3, nb+1, nb+4, nb+2)
		out = append(append([]int64(nil), batch...), oc, H*f, W*f)
	} else {
		if H%f != 0 || W%f != 0 {
			return nil, c.Errorf("pixel_unshuffle expects height and width to be divisible by downscale_factor %d, got %d x %d", f, H, W)
		}
		mid = append(append([]int64(nil), batch...), C, H/f, f, W/f, f)
		perm = append(seqI64(int(nb)), nb, nb+2, nb+4, nb+1, nb+3)
		out = append(append([]int64(nil), batch...), C*f*f, H/f, W/f)
	}
	v := emitTranspose(c, c.Reshape(x, mid), perm)
	return one(c.Reshape(v, out)), nil
}

func lowerBroadcastTensors(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shapes := make([][]int64, len(xs))
	for i, x := range xs {
		shapes[i] = c.Shape(x)
	}
	shape, err := broadcastShapes(shapes...)
	if err != nil {
		return nil, c.Errorf("broadcast_tensors: %w", err)
	}
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = TensorValue(c.BroadcastTo(x, shape))
	}
	return []Value{ListValue(out...)}, nil
}
