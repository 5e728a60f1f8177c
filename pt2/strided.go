package pt2

import (
	"fmt"
	"math/bits"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/limits"
	"github.com/torchtpu/torchtpu/literal"
)

// asStrided materializes the view (shape, strides, offset) of a storage
// holding elements of dt, as PyTorch's as_strided does, into a new dense
// row-major literal. Strides and offset are in elements. It checks that
// every element the view reaches lies inside the storage, and charges the
// copy's bytes to budget before allocating it (a view with stride 0 can
// be far larger than its storage).
func asStrided(dt dtype.DType, storage []byte, shape, strides []int64, offset int64, budget *limits.Budget) (*literal.Literal, error) {
	l, _, err := view(dt, storage, shape, strides, offset, false, budget)
	return l, err
}

// adoptStrided is asStrided for a storage the caller hands over: when the
// view is the whole storage, dense and in order (a weight saved on its own,
// the common case), the literal takes storage as its data instead of
// copying it, so a loaded weight is held once, not twice (and is not
// charged again). The caller must not use storage again.
func adoptStrided(dt dtype.DType, storage []byte, shape, strides []int64, offset int64, budget *limits.Budget) (*literal.Literal, error) {
	l, _, err := view(dt, storage, shape, strides, offset, true, budget)
	return l, err
}

// view is asStrided, or adoptStrided when adopt is set; adopted reports
// whether the literal took storage as its data.
func view(dt dtype.DType, storage []byte, shape, strides []int64, offset int64, adopt bool, budget *limits.Budget) (l *literal.Literal, adopted bool, err error) {
	es := dt.Size()
	if es == 0 {
		return nil, false, fmt.Errorf("invalid dtype %v", dt)
	}
	if len(strides) != len(shape) {
		return nil, false, fmt.Errorf("%d strides for %d dims", len(strides), len(shape))
	}
	n, err := literal.NumElements(shape)
	if err != nil {
		return nil, false, err
	}
	if offset < 0 {
		return nil, false, fmt.Errorf("negative storage offset %d", offset)
	}
	if n == 0 {
		l, err := literal.New(dt, shape)
		return l, false, err
	}
	avail := int64(len(storage) / es)
	// The furthest element reached: offset + Σ (size-1)·stride.
	last := uint64(offset)
	for i, s := range strides {
		if s < 0 {
			return nil, false, fmt.Errorf("negative stride %d in dim %d", s, i)
		}
		hi, lo := bits.Mul64(uint64(shape[i]-1), uint64(s))
		sum, carry := bits.Add64(last, lo, 0)
		if hi != 0 || carry != 0 || sum > uint64(avail) {
			return nil, false, fmt.Errorf("view %v strides %v offset %d reaches past the storage of %d elements", shape, strides, offset, avail)
		}
		last = sum
	}
	if last >= uint64(avail) {
		return nil, false, fmt.Errorf("view %v strides %v offset %d reaches element %d of a storage of %d", shape, strides, offset, last, avail)
	}
	if adopt && offset == 0 && n*int64(es) == int64(len(storage)) && isContiguous(shape, strides) {
		l, err := literal.FromBytes(dt, shape, storage[:len(storage):len(storage)])
		return l, err == nil, err
	}
	// Allocate only once the view is known to lie inside the storage and
	// its bytes are within the file's budget.
	if err := budget.Take(fmt.Sprintf("view %v%v", dt, shape), n*int64(es)); err != nil {
		return nil, false, err
	}
	out, err := literal.New(dt, shape)
	if err != nil {
		return nil, false, err
	}
	if isContiguous(shape, strides) {
		copy(out.Data, storage[offset*int64(es):(offset+n)*int64(es)])
		return out, false, nil
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
	return out, false, nil
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
