package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Patch ops and channel rearrangements: im2col (F.unfold), col2im
// (F.fold), channel_shuffle, and _pdist_forward (pairwise row distances).

func init() {
	lower("aten::im2col", lowerIm2col)
	lower("aten::col2im", lowerCol2im)
	lower("aten::channel_shuffle", lowerChannelShuffle)
	lower("aten::native_channel_shuffle", lowerChannelShuffle)
	lower("aten::_pdist_forward", lowerPdist)
	lower("aten::pdist", lowerPdist)
}

type foldGeom struct{ kh, kw, dh, dw, ph, pw, sh, sw int64 }

func foldArgs(c *LowerCtx, a *Args) (foldGeom, error) {
	k, d, p, s := a.Ints("kernel_size"), a.Ints("dilation"), a.Ints("padding"), a.Ints("stride")
	if a.Err() != nil {
		return foldGeom{}, a.Err()
	}
	if len(k) != 2 || len(d) != 2 || len(p) != 2 || len(s) != 2 {
		return foldGeom{}, c.Errorf("%s: kernel_size, dilation, padding and stride must have 2 elements", a.Schema.Name)
	}
	g := foldGeom{k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]}
	if g.kh <= 0 || g.kw <= 0 || g.dh <= 0 || g.dw <= 0 || g.sh <= 0 || g.sw <= 0 || g.ph < 0 || g.pw < 0 {
		return foldGeom{}, c.Errorf("%s: kernel, dilation and stride must be positive and padding non-negative", a.Schema.Name)
	}
	return g, nil
}

func (g foldGeom) blocks(h, w int64) (oh, ow int64) {
	return (h+2*g.ph-g.dh*(g.kh-1)-1)/g.sh + 1, (w+2*g.pw-g.dw*(g.kw-1)-1)/g.sw + 1
}

func lowerIm2col(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	g, err := foldArgs(c, a)
	if err != nil {
		return nil, err
	}
	shape := c.Shape(x)
	batched := len(shape) == 4
	if !batched {
		if len(shape) != 3 {
			return nil, c.Errorf("im2col: expected 3D or 4D input, got %v", shape)
		}
		x = c.Reshape(x, append([]int64{1}, shape...))
		shape = c.Shape(x)
	}
	N, C, H, W := shape[0], shape[1], shape[2], shape[3]
	oh, ow := g.blocks(H, W)
	if oh <= 0 || ow <= 0 {
		return nil, c.Errorf("im2col: given input of spatial size %dx%d, the sliding blocks are empty", H, W)
	}
	xp := emitPad(c, x, c.SplatInt(c.DType(x), nil, 0), []int64{0, 0, g.ph, g.pw}, []int64{0, 0, g.ph, g.pw})
	var parts []*stablehlo.Value
	for i := int64(0); i < g.kh; i++ {
		for j := int64(0); j < g.kw; j++ {
			s := emitSlice(c, xp, []int64{0, 0, i * g.dh, j * g.dw},
				[]int64{N, C, i*g.dh + (oh-1)*g.sh + 1, j*g.dw + (ow-1)*g.sw + 1}, []int64{1, 1, g.sh, g.sw})
			parts = append(parts, c.Reshape(s, []int64{N, C, 1, oh * ow}))
		}
	}
	out := c.Reshape(emitConcat(c, parts, 2), []int64{N, C * g.kh * g.kw, oh * ow})
	if !batched {
		out = c.Reshape(out, []int64{C * g.kh * g.kw, oh * ow})
	}
	return one(out), nil
}

func lowerCol2im(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	osize := a.Ints("output_size")
	g, err := foldArgs(c, a)
	if err != nil {
		return nil, err
	}
	if len(osize) != 2 {
		return nil, c.Errorf("col2im: output_size must have 2 elements")
	}
	shape := c.Shape(x)
	batched := len(shape) == 3
	if !batched {
		if len(shape) != 2 {
			return nil, c.Errorf("col2im: expected 2D or 3D input, got %v", shape)
		}
		x = c.Reshape(x, append([]int64{1}, shape...))
		shape = c.Shape(x)
	}
	H, W := osize[0], osize[1]
	oh, ow := g.blocks(H, W)
	N, CK, L := shape[0], shape[1], shape[2]
	kk := g.kh * g.kw
	if CK%kk != 0 || L != oh*ow {
		return nil, c.Errorf("col2im: input of shape %v does not match kernel %dx%d with %d blocks", shape, g.kh, g.kw, oh*ow)
	}
	C := CK / kk
	dt := c.DType(x)
	cols := c.Reshape(x, []int64{N, C, g.kh, g.kw, oh, ow})
	Hp, Wp := H+2*g.ph, W+2*g.pw
	acc := c.SplatInt(dt, []int64{N, C, Hp, Wp}, 0)
	zero := c.SplatInt(dt, nil, 0)
	for i := int64(0); i < g.kh; i++ {
		for j := int64(0); j < g.kw; j++ {
			patch := c.Reshape(emitSlice(c, cols, []int64{0, 0, i, j, 0, 0}, []int64{N, C, i + 1, j + 1, oh, ow}, nil), []int64{N, C, oh, ow})
			lo := []int64{0, 0, i * g.dh, j * g.dw}
			hi := []int64{0, 0, Hp - (i*g.dh + (oh-1)*g.sh + 1), Wp - (j*g.dw + (ow-1)*g.sw + 1)}
			placed := c.Op1("stablehlo.pad", []*stablehlo.Value{patch, zero}, []stablehlo.NamedAttr{
				I64s("edge_padding_low", lo), I64s("edge_padding_high", hi), I64s("interior_padding", []int64{0, 0, g.sh - 1, g.sw - 1})})
			acc = c.Binary("add", acc, placed)
		}
	}
	out := emitSlice(c, acc, []int64{0, 0, g.ph, g.pw}, []int64{N, C, g.ph + H, g.pw + W}, nil)
	if !batched {
		out = c.Reshape(out, []int64{C, H, W})
	}
	return one(out), nil
}

func lowerChannelShuffle(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	groups := a.Int("groups")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) < 3 || groups <= 0 || shape[1]%groups != 0 {
		return nil, c.Errorf("channel_shuffle: expected an input of rank >= 3 whose channels (%v) divide into %d groups", shape, groups)
	}
	mid := append([]int64{shape[0], groups, shape[1] / groups}, shape[2:]...)
	perm := append([]int64{0, 2, 1}, seqI64(len(mid))[3:]...)
	return one(c.Reshape(emitTranspose(c, c.Reshape(x, mid), perm), shape)), nil
}

func lowerPdist(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	p := a.Float("p")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) != 2 {
		return nil, c.Errorf("pdist only supports 2D tensors, got: %dD", len(shape))
	}
	dt := c.DType(x)
	if !dt.IsFloat() || p < 0 {
		return nil, c.Errorf("pdist only supports floating-point dtypes and non-negative p")
	}
	n := shape[0]
	var is, js []int64
	for i := int64(0); i < n; i++ {
		for j := i + 1; j < n; j++ {
			is, js = append(is, i), append(js, j)
		}
	}
	k := int64(len(is))
	xc := c.Convert(x, OpMath(dt))
	a1 := takeAlong(c, xc, 0, []int64{k}, is)
	a2 := takeAlong(c, xc, 0, []int64{k}, js)
	return one(c.Convert(pnormReduce(c, c.Binary("subtract", a1, a2), []int64{1}, p), dt)), nil
}
