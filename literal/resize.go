package literal

import (
	"fmt"
	"slices"
)

// Resize returns l copied into a zero tensor of shape: each dim padded
// with zeros or cut at its end (l itself when the shape is its own).
func Resize(l *Literal, shape []int64) (*Literal, error) {
	if slices.Equal(l.Shape, shape) {
		return l, nil
	}
	if len(shape) != len(l.Shape) {
		return nil, fmt.Errorf("resize %v to rank %d", l.Shape, len(shape))
	}
	out, err := New(l.DType, shape)
	if err != nil {
		return nil, err
	}
	es := int64(l.DType.Size())
	box := make([]int64, len(shape))
	for i := range box {
		box[i] = min(shape[i], l.Shape[i])
		if box[i] == 0 {
			return out, nil
		}
	}
	if len(shape) == 0 {
		copy(out.Data, l.Data)
		return out, nil
	}
	r := len(shape)
	idx := make([]int64, r-1)
	row := box[r-1] * es
	for {
		var so, do int64
		for i := 0; i < r-1; i++ {
			so = so*l.Shape[i] + idx[i]
			do = do*shape[i] + idx[i]
		}
		so, do = so*l.Shape[r-1]*es, do*shape[r-1]*es
		copy(out.Data[do:do+row], l.Data[so:so+row])
		i := r - 2
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < box[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out, nil
		}
	}
}
