package capi

import (
	"github.com/torchtpu/torchtpu/literal"
)

// Buffer is tensor data owned by the engine on behalf of a caller (the
// eager device keeps tensor storage in them).
type Buffer struct {
	lit *literal.Literal
}

func (b *Buffer) release() { b.lit = nil }
