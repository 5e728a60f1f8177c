package eager

import (
	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The views of a fused block: reading a view of a slot's whole value and
// writing through one, in the lowering context of the block's module.

// viewOf reads view v from src, a value holding a whole buffer (row-major,
// the view's dtype): a reshape, a slice and transpose for contiguous and
// permuted views, a broadcast for expanded dims, else a gather (the
// registry's as_strided).
func viewOf(c *aten.LowerCtx, src *stablehlo.Value, v *View) *stablehlo.Value {
	n := numelOf(c.Shape(src))
	if v.Offset == 0 && v.numel() == n && v.contiguous() {
		if sameShape(c.Shape(src), v.Shape) {
			return src
		}
		return c.Reshape(src, v.Shape)
	}
	flat := c.Reshape(src, []int64{n})
	// Expanded dims (stride 0) are read once and broadcast.
	base := View{DType: v.DType, Offset: v.Offset, Shape: append([]int64(nil), v.Shape...), Strides: v.Strides}
	expanded := false
	for i := range base.Shape {
		if base.Strides[i] == 0 && base.Shape[i] > 1 {
			base.Shape[i] = 1
			expanded = true
		}
	}
	out := permutedView(c, flat, &base)
	if out == nil {
		r, err := c.Call("aten::as_strided.default", []aten.Value{aten.TensorValue(flat), aten.IntsValue(base.Shape),
			aten.IntsValue(base.Strides), aten.IntValue(base.Offset)}, nil)
		if err != nil || len(r) != 1 || r[0].T == nil {
			c.Errorf("fused view %v: %v", v, err)
			return c.Splat(v.DType, v.Shape, 0)
		}
		out = r[0].T
	}
	if expanded {
		dims := make([]int64, len(v.Shape))
		for i := range dims {
			dims[i] = int64(i)
		}
		out = c.BroadcastInDim(out, v.Shape, dims)
	}
	return out
}

// permutedView reads a view that is a box of flat: its dims, ordered by
// stride, nest (each stride a multiple of the next, each dim's extent
// within the next larger stride), as a slice of one contiguous run of flat
// reshaped to [size0, s0/s1, ..., s_k] and sliced down to the view's sizes,
// then transposed to the view's dim order. Slices (x[:, 1:3]), steps
// (x[::2]), transposes and permutations of those all are boxes; other
// views return nil.
func permutedView(c *aten.LowerCtx, flat *stablehlo.Value, v *View) *stablehlo.Value {
	var dims []int
	for i, s := range v.Shape {
		if s > 1 {
			dims = append(dims, i)
		}
	}
	if len(dims) == 0 {
		return nil
	}
	// order the dims by stride, largest first
	ord := append([]int(nil), dims...)
	for i := 1; i < len(ord); i++ {
		for j := i; j > 0 && v.Strides[ord[j]] > v.Strides[ord[j-1]]; j-- {
			ord[j], ord[j-1] = ord[j-1], ord[j]
		}
	}
	box := []int64{v.Shape[ord[0]]}
	for i := 0; i+1 < len(ord); i++ {
		s, next := v.Strides[ord[i]], v.Strides[ord[i+1]]
		if next <= 0 || s%next != 0 || v.Shape[ord[i+1]]*next > s {
			return nil
		}
		box = append(box, s/next)
	}
	last := v.Strides[ord[len(ord)-1]]
	if last <= 0 {
		return nil
	}
	box = append(box, last)
	total := numelOf(c.Shape(flat))
	run := v.Shape[ord[0]] * v.Strides[ord[0]]
	if v.Offset+run > total {
		// the box's last row runs past the buffer: pad it (never read)
		r, err := c.Call("aten::constant_pad_nd.default", []aten.Value{aten.TensorValue(flat),
			aten.IntsValue([]int64{0, v.Offset + run - total}), aten.IntValue(0)}, nil)
		if err != nil || len(r) != 1 || r[0].T == nil {
			return nil
		}
		flat = r[0].T
		total = v.Offset + run
	}
	x := flat
	if v.Offset != 0 || run != total {
		x = sliceDim(c, x, 0, v.Offset, v.Offset+run)
		if x == nil {
			return nil
		}
	}
	x = c.Reshape(x, box)
	for i := 1; i < len(box); i++ {
		want := int64(1)
		if i < len(ord) {
			want = v.Shape[ord[i]]
		}
		if box[i] != want {
			if x = sliceDim(c, x, i, 0, want); x == nil {
				return nil
			}
		}
	}
	sorted := make([]int64, len(ord))
	for i, d := range ord {
		sorted[i] = v.Shape[d]
	}
	x = c.Reshape(x, sorted)
	// position of each original dim (of those > 1) in the sorted order
	perm := make([]int64, len(dims))
	identity := true
	for i, d := range dims {
		for j, o := range ord {
			if o == d {
				perm[i] = int64(j)
			}
		}
		if perm[i] != int64(i) {
			identity = false
		}
	}
	if !identity {
		r, err := c.Call("aten::permute.default", []aten.Value{aten.TensorValue(x), aten.IntsValue(perm)}, nil)
		if err != nil || len(r) != 1 || r[0].T == nil {
			return nil
		}
		x = r[0].T
	}
	return c.Reshape(x, v.Shape)
}

// sliceDim takes [start, end) of dim d of x (the registry's slice).
func sliceDim(c *aten.LowerCtx, x *stablehlo.Value, d int, start, end int64) *stablehlo.Value {
	r, err := c.Call("aten::slice.Tensor", []aten.Value{aten.TensorValue(x), aten.IntValue(int64(d)),
		aten.IntValue(start), aten.IntValue(end), aten.IntValue(1)}, nil)
	if err != nil || len(r) != 1 || r[0].T == nil {
		return nil
	}
	return r[0].T
}

// scatterInto stores src through view v of base (a whole buffer's value)
// and returns the new whole value (the registry's as_strided_scatter).
func scatterInto(c *aten.LowerCtx, base, src *stablehlo.Value, v *View) *stablehlo.Value {
	shape := c.Shape(base)
	flat := c.Reshape(base, []int64{numelOf(shape)})
	r, err := c.Call("aten::as_strided_scatter.default", []aten.Value{aten.TensorValue(flat), aten.TensorValue(src),
		aten.IntsValue(v.Shape), aten.IntsValue(v.Strides), aten.IntValue(v.Offset)}, nil)
	if err != nil || len(r) != 1 || r[0].T == nil {
		c.Errorf("fused write through view %v: %v", v, err)
		return base
	}
	return c.Reshape(r[0].T, shape)
}

func numelOf(shape []int64) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	return n
}
