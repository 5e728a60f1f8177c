package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// denseFromHex decodes MLIR's raw hex form: the little-endian storage of
// all elements, or of one element for a splat (i1: see boolFromHex);
// sub-byte types take one byte each, value in the low bits.
func denseFromHex(hex string, dt dtype.DType, shape []int64, n int64) (*literal.Literal, bool, error) {
	raw, err := decodeHex(hex[2:])
	if err != nil {
		return nil, false, err
	}
	size := int64(dt.Size())
	if dt == dtype.Bool {
		return boolFromHex(raw, shape, n)
	}
	fix := func(b []byte) {
		if dt.Bits() >= 8 || dt.IsComplex() {
			return
		}
		for i := range b {
			b[i] = byte(truncInt(int64(b[i]), dt))
			if dt.IsFloat() {
				b[i] &= 1<<uint(dt.Bits()) - 1
			}
		}
	}
	switch int64(len(raw)) {
	case size:
		fix(raw)
		return splatLit(dt, shape, n, raw)
	case size * n:
		fix(raw)
		lit, err := literal.FromBytes(dt, shape, raw)
		return lit, false, err
	}
	return nil, false, fmt.Errorf("hex dense data of %d bytes for %d elements of %d bytes", len(raw), n, size)
}

// boolFromHex decodes i1 hex data. MLIR's builtin layout is bit-packed
// (LSB first) with a single 0x00/0xFF byte meaning a splat; producers also
// emit one byte per element, which is accepted too (nonzero is true).
func boolFromHex(raw []byte, shape []int64, n int64) (*literal.Literal, bool, error) {
	if len(raw) == 1 && (n == 1 || raw[0] == 0 || raw[0] == 0xFF) {
		return splatLit(dtype.Bool, shape, n, []byte{b2u(raw[0] != 0)})
	}
	var get func(i int) byte
	switch int64(len(raw)) {
	case n:
		get = func(i int) byte { return b2u(raw[i] != 0) }
	case (n + 7) / 8:
		get = func(i int) byte { return raw[i/8] >> uint(i%8) & 1 }
	default:
		return nil, false, fmt.Errorf("hex dense data of %d bytes for %d i1 elements (want %d bit-packed or %d bytes)", len(raw), n, (n+7)/8, n)
	}
	lit, err := literal.New(dtype.Bool, shape)
	if err != nil {
		return nil, false, err
	}
	for i := range lit.Data {
		lit.Data[i] = get(i)
	}
	return lit, false, nil
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// splatLit makes a one-element literal: shaped like the type when it has
// one element, else a scalar marked as a splat.
func splatLit(dt dtype.DType, shape []int64, n int64, elem []byte) (*literal.Literal, bool, error) {
	if n == 1 {
		lit, err := literal.FromBytes(dt, shape, elem)
		return lit, false, err
	}
	lit, err := literal.FromBytes(dt, []int64{}, elem)
	return lit, true, err
}

func decodeHex(h string) ([]byte, error) {
	if len(h)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits in dense data")
	}
	out := make([]byte, len(h)/2)
	for i := range out {
		a, b := h[2*i], h[2*i+1]
		if !isHex(a) || !isHex(b) {
			return nil, fmt.Errorf("bad hex digit in dense data at offset %d", 2*i)
		}
		out[i] = hexVal(a)<<4 | hexVal(b)
	}
	return out, nil
}
