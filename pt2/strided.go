package pt2

import (
	"fmt"
	"math/bits"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// asStrided materializes the view (shape, strides, offset) of a storage
// holding elements of dt, as PyTorch's as_strided does, into a new dense
// row-major literal. Strides and offset are in elements. It checks that
// every element the view reaches lies inside the storage.
func asStrided(dt dtype.DType, storage []byte, shape, strides []int64, offset int64) (*literal.Literal, error) {
	es := dt.Size()
	if es == 0 {
		return nil, fmt.Errorf("invalid dtype %v", dt)
	}
	if len(strides) != len(shape) {
		return nil, fmt.Errorf("%d strides for %d dims", len(strides), len(shape))
	}
	n, err := literal.NumElements(shape)
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		return nil, fmt.Errorf("negative storage offset %d", offset)
	}
	if n == 0 {
		return literal.New(dt, shape)
	}
	avail := int64(len(storage) / es)
	// The furthest element reached: offset + Σ (size-1)·stride.
	last := uint64(offset)
	for i, s := range strides {
		if s < 0 {
			return nil, fmt.Errorf("negative stride %d in dim %d", s, i)
		}
		hi, lo := bits.Mul64(uint64(shape[i]-1), uint64(s))
		sum, carry := bits.Add64(last, lo, 0)
		if hi != 0 || carry != 0 || sum > uint64(avail) {
			return nil, fmt.Errorf("view %v strides %v offset %d reaches past the storage of %d elements", shape, strides, offset, avail)
		}
		last = sum
	}
	if last >= uint64(avail) {
		return nil, fmt.Errorf("view %v strides %v offset %d reaches element %d of a storage of %d", shape, strides, offset, last, avail)
	}
	// Allocate only once the view is known to lie inside the storage.
	out, err := literal.New(dt, shape)
	if err != nil {
		return nil, err
	}
	if isContiguous(shape, strides) {
		copy(out.Data, storage[offset*int64(es):(offset+n)*int64(es)])
		return out, nil
	}
	rank := len(shape)
	idx := make([]int64, rank)
	src := offset
	for i := int64(0); i < n; i++ {
		copy(out.Data[i*int64(es):(i+1)*int64(es)], storage[src*int64(es):(src+1)*int64(es)])
		for d := rank - 1; d >= 0; d-- {
			idx[d]++
			src += strides[d]
			if idx[d] < shape[d] {
				break
			}
			src -= strides[d] * shape[d]
			idx[d] = 0
		}
	}
	return out, nil
}

// isContiguous reports whether strides are row-major for shape (dims of
// size 1 may have any stride).
func isContiguous(shape, strides []int64) bool {
	want := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] != 1 && strides[i] != want {
			return false
		}
		want *= shape[i]
	}
	return true
}
