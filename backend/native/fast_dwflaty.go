package native

// Depthwise 3×3 convolutions at stride 1 on small planes (dwFlatYMaxOut
// outputs a plane at most), on CPUs with AVX2 but not AVX-512: the flat
// kernel (fast_dwflaty_amd64.s, written by internal/dwgen) runs along each
// channel's plane as one row of oh·w outputs, masking the taps whose input
// lies outside the image. The channel-vector path it replaces on rows
// narrower than 16 (fast_dwc16.go) transposes
// each block of sixteen channels in and out; on MobileNetV2's 14×14 and
// 7×7 layers the transposes took three times the multiply-adds. The sums
// are the other depthwise kernels' bit for bit.

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// dwFlatArgs are the flat kernel's arguments (the layout
// fast_dwflaty_amd64.s reads; internal/dwgen/flaty.go describes it).
type dwFlatArgs struct {
	dst   *float32
	src   uintptr // may point before the plane: an address, not a pointer
	w     *float32
	masks *int32
	pitch int
	nv    int
	last  *int32
}

// dwFlatYEnabled switches the flat path (tests compare it with the others).
var dwFlatYEnabled = dwSweepYOK

// dwFlatYMaxOut is the largest plane (outputs) the flat path takes: its
// masks, 288 bytes a vector, stay within the first-level cache.
const dwFlatYMaxOut = 400

// useFlatY reports whether the flat kernel takes c: depthwise, 3×3 at
// stride 1 both ways, no dilation, as many output columns as input
// columns (padL + padR = 2), a plane of dwFlatYMaxOut outputs at most, and
// no AVX-512. It goes before the AVX2 sweep, which takes rows of 16 and
// more: on 16×16 planes it was 11-20% faster than the sweep (88, 144 and
// 256 channels: 9.9 → 8.8, 14.8 → 12.3, 24.7 → 19.8 µs).
func (c *conv2d) useFlatY() bool {
	return dwFlatYEnabled && !dwc512 && c.kerC == 1 && c.outC == c.groups && c.kh == 3 && c.kw == 3 &&
		c.dh == 1 && c.dw == 1 && c.ldh <= 1 && c.ldw <= 1 && c.sh == 1 && c.sw == 1 &&
		c.ow == c.w && c.oh*c.ow <= dwFlatYMaxOut
}

// dwFlatMasks returns the flat kernel's masks ([vectors][9][8]int32: lane
// j of vector v, tap t on when output v·8+j of the plane reads an input
// inside the image through t) and the partial vector's store mask (nil
// when the plane is whole vectors), made once per geometry (dwFlatMaskSets:
// made per call, they were a twentieth of a 14×14 layer's time).
func (c *conv2d) dwFlatMasks() (masks, last []int32) {
	key := [5]int{c.h, c.w, c.oh, c.padT, c.padL}
	if v, ok := dwFlatMaskSets.Load(key); ok {
		m := v.(*[2][]int32)
		return m[0], m[1]
	}
	n := c.oh * c.ow
	nvAll := (n + 7) / 8
	masks = make([]int32, nvAll*9*8)
	for p := 0; p < n; p++ {
		y, x := p/c.ow, p%c.ow
		for t := 0; t < 9; t++ {
			iy, ix := y+t/3-c.padT, x+t%3-c.padL
			if iy >= 0 && iy < c.h && ix >= 0 && ix < c.w {
				masks[(p/8*9+t)*8+p%8] = -1
			}
		}
	}
	last = storeMask8(n % 8)
	dwFlatMaskSets.Store(key, &[2][]int32{masks, last})
	return masks, last
}

// dwFlatMaskSets holds the flat kernel's masks per geometry (height,
// width, output height, top and left padding): a model has a few.
var dwFlatMaskSets sync.Map

// runFlatY computes c (see useFlatY) into dst, in runs of channels
// (eachChannelRun).
func (c *conv2d) runFlatY(dst []float32) {
	n, hw := c.oh*c.ow, c.h*c.w
	masks, last := c.dwFlatMasks()
	// the kernel reads the plane from before index −(padT·w + padL) to
	// after index vectors·8 − 1 + (2−padT)·w + 2 − padL; channels whose
	// reads would leave the input go through a copy with margins
	before := c.padT*c.w + c.padL
	after := (n+7)/8*8 - 1 + (2-c.padT)*c.w + 2 - c.padL - (hw - 1)
	before, after = max(before, 0), max(after, 0)
	c.eachChannelRun(9, func(b, c0, c1 int) {
		a := dwFlatScratches.Get().(*dwFlatArgs)
		defer dwFlatScratches.Put(a)
		*a = dwFlatArgs{masks: &masks[0], pitch: 4 * c.w, nv: n / 8}
		if last != nil {
			a.last = &last[0]
		}
		var padded []float32 // a plane with margins, for the input's first and last channels
		for ch := c0; ch < c1; ch++ {
			off := (b*c.inC + ch) * hw
			src := c.lhs[off : off+hw]
			if off-before < 0 || off+hw+after > len(c.lhs) {
				if padded == nil {
					padded = gemm.GetBuffer(before + hw + after)
					defer gemm.PutBuffer(padded)
					clear(padded)
				}
				copy(padded[before:], src)
				src = padded[before : before+hw]
			}
			a.dst = &dst[(b*c.outC+ch)*n]
			a.src = uintptr(unsafe.Pointer(&src[0])) - uintptr(4*(c.padT*c.w+c.padL))
			a.w = &c.rhs[ch*9]
			dwFlatY3(a)
			runtime.KeepAlive(src)
		}
		runtime.KeepAlive(c.rhs)
		runtime.KeepAlive(masks)
		runtime.KeepAlive(last)
	})
}

var dwFlatScratches = sync.Pool{New: func() any { return new(dwFlatArgs) }}
