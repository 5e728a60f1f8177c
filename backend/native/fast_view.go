package native

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// hostLittleEndian reports whether float32 values in memory have the byte
// order of literal data, so that a literal's bytes can be used in place.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// f32View returns the float32 elements of little-endian bytes: the bytes
// themselves when the host is little-endian and they are aligned, else a
// decoded copy. The caller must not write through a view of an input.
func f32View(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if hostLittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// f32Out returns float32 storage for a result literal's bytes and a
// function that stores it there: the bytes themselves where f32View can
// alias them (the store is then a no-op), else a scratch slice encoded
// back on store.
func f32Out(b []byte) ([]float32, func()) {
	n := len(b) / 4
	if n > 0 && hostLittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n), func() {}
	}
	out := make([]float32, n)
	return out, func() {
		for i, v := range out {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
	}
}
