package capi

import (
	"encoding/binary"
	"testing"
	"unsafe"
)

// FuzzTensorDesc feeds arbitrary descriptors (dtype, shape, strides,
// extent) to the checks every tensor crossing the C ABI goes through: they
// never panic, and one they accept addresses no byte past its extent
// (checked here independently, with big-integer-safe arithmetic, before
// the gather reads the memory).
func FuzzTensorDesc(f *testing.F) {
	f.Add(int32(6), []byte{2, 0, 3, 0}, []byte{3, 0, 1, 0}, int64(24), true)
	f.Add(int32(4), []byte{0, 0}, []byte{}, int64(0), false)
	f.Add(int32(15), []byte{1, 1, 1}, []byte{0, 0, 0}, int64(2), true)
	f.Add(int32(6), []byte{255, 255}, []byte{255, 255}, int64(1<<40), true)
	f.Fuzz(func(t *testing.T, code int32, shapeB, strideB []byte, extent int64, withStrides bool) {
		if len(shapeB) > 2*MaxRank+2 {
			return
		}
		shape := make([]int64, len(shapeB)/2)
		for i := range shape {
			shape[i] = int64(int16(binary.LittleEndian.Uint16(shapeB[2*i:])))
		}
		var strides []int64
		if withStrides {
			strides = make([]int64, len(strideB)/2)
			for i := range strides {
				strides[i] = int64(int16(binary.LittleEndian.Uint16(strideB[2*i:])))
			}
		}
		// Real memory of at most 1 MiB behind the descriptor; a larger
		// declared extent is a lie the checks cannot see, so keep it honest.
		if extent > 1<<20 {
			extent %= 1 << 20
		}
		buf := make([]byte, max(extent, 1))
		d := TensorDesc{Data: unsafe.Pointer(&buf[0]), Extent: extent, DType: code, Shape: shape, Strides: strides}
		dt, n, _, err := d.checked()
		if err != nil {
			return
		}
		if n > 0 {
			last := int64(0)
			for i, s := range shape {
				st := int64(1)
				if strides != nil {
					st = strides[i]
				} else {
					for _, inner := range shape[i+1:] {
						st *= inner
					}
				}
				last += (s - 1) * st
			}
			if (last+1)*int64(dt.Size()) > extent {
				t.Fatalf("accepted %v strides %v dtype %v: addresses %d bytes of %d", shape, strides, dt, (last+1)*int64(dt.Size()), extent)
			}
		}
		if _, err := d.Literal(); err != nil {
			t.Fatalf("checked but Literal failed: %v", err)
		}
	})
}
