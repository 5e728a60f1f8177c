package eager

import (
	"fmt"
	"math/bits"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// MaxRank is the largest rank of a view: the C ABI's TT_MAX_RANK
// (capi.MaxRank, which the C ABI checks is the same).
const MaxRank = 16

// A View is how a tensor of the eager device sees its storage, as PyTorch
// describes it: element type, offset from the storage start, sizes and
// strides, both in elements. Several views share one Buffer (x and
// x[1:3], x and x.t()); reads gather a view into a contiguous literal,
// writes scatter a contiguous result back through it, so that a write
// through one view is seen by every other.
type View struct {
	DType   dtype.DType
	Offset  int64
	Shape   []int64
	Strides []int64
}

// numel returns the number of elements the view addresses.
func (v *View) numel() int64 {
	n := int64(1)
	for _, d := range v.Shape {
		n *= d
	}
	return n
}

// check validates v against a storage of nbytes and returns its element
// count. Every element addressed must lie inside the storage.
func (v *View) check(nbytes int64) (int64, error) {
	if len(v.Shape) > MaxRank {
		return 0, fmt.Errorf("rank %d is over the limit of %d", len(v.Shape), MaxRank)
	}
	if len(v.Strides) != len(v.Shape) {
		return 0, fmt.Errorf("%d strides for %d dims", len(v.Strides), len(v.Shape))
	}
	if v.Offset < 0 {
		return 0, fmt.Errorf("negative storage offset %d", v.Offset)
	}
	n, err := literal.NumElements(v.Shape)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	last := v.Offset
	for i, d := range v.Shape {
		st := v.Strides[i]
		if st < 0 {
			return 0, fmt.Errorf("negative stride %d in dim %d", st, i)
		}
		hi, lo := bits.Mul64(uint64(d-1), uint64(st))
		if hi != 0 || lo > 1<<62 {
			return 0, fmt.Errorf("stride %d of dim %d overflows", st, i)
		}
		last += int64(lo)
		if last > 1<<62 {
			return 0, fmt.Errorf("strides %v overflow", v.Strides)
		}
	}
	size := int64(v.DType.Size())
	if size == 0 {
		return 0, fmt.Errorf("dtype %v has no byte size", v.DType)
	}
	if (last+1)*size > nbytes {
		return 0, fmt.Errorf("view (offset %d, shape %v, strides %v) of %v addresses %d bytes, past the %d bytes of its storage",
			v.Offset, v.Shape, v.Strides, v.DType, (last+1)*size, nbytes)
	}
	return n, nil
}

// contiguous reports whether v is row-major contiguous.
func (v *View) contiguous() bool {
	want := int64(1)
	for i := len(v.Shape) - 1; i >= 0; i-- {
		if v.Shape[i] != 1 && v.Strides[i] != want {
			return false
		}
		want *= v.Shape[i]
	}
	return true
}

// whole reports whether v is the whole storage of nbytes, contiguous from
// its start: reads and writes then need no gather or scatter.
func (v *View) whole(nbytes int64) bool {
	return v.Offset == 0 && v.numel()*int64(v.DType.Size()) == nbytes && v.contiguous()
}

// gatherView copies the elements of view v of src into dst (contiguous,
// v.numel()*size bytes). v has been checked against len(src).
func gatherView(dst, src []byte, v *View) {
	literal.Gather(dst, src, v.Offset, v.Shape, v.Strides, int64(v.DType.Size()))
}

// scatterView copies contiguous src into the elements of view v of dst.
// Where a view addresses one element twice (a stride of 0) the last write
// wins; PyTorch rejects such writes before they get here.
func scatterView(dst, src []byte, v *View) {
	literal.Scatter(dst, src, v.Offset, v.Shape, v.Strides, int64(v.DType.Size()))
}
