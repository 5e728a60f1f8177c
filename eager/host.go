package eager

import (
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
)

// Host is the device's caller: the C ABI (package capi) or a test. It owns
// the table of handles by which buffers are named, in argument words and
// returns as in NewBuffer, Write and Read, and the rules for reading its
// CPU memory; the device keeps neither.
type Host interface {
	// Handle registers a new buffer and returns its handle (never 0).
	Handle(b *Buffer) uint64
	// Buffer returns the live buffer of handle h, or an error naming h
	// (null, unknown, freed, or not a buffer). Freeing a handle calls
	// its buffer's Release.
	Buffer(h uint64) (*Buffer, error)
	// CopyTensor copies a CPU tensor argument into Go memory: data points
	// at its first element, extent bytes are readable from there, dtype
	// is a c10::ScalarType number, strides are in elements. The
	// description is checked before memory is read.
	CopyTensor(data unsafe.Pointer, extent int64, dtype int32, shape, strides []int64) (*literal.Literal, error)
	// Live counts the caller's live handles by kind (for the stats).
	Live() map[string]int
}
