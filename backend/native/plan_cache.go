package native

import (
	"runtime"
	"sync"
	"weak"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// opCache keeps the last plan of each op (the dot, reduce and transpose
// fast paths plan once per op and operand shapes). Entries are keyed by a
// weak pointer to the op and dropped when the op's module is collected;
// the caller checks that an entry's shapes still match.
type opCache[E any] struct{ m sync.Map } // weak.Pointer[stablehlo.Op] -> E

// get returns the entry of op, if any.
func (c *opCache[E]) get(op *stablehlo.Op) (E, bool) {
	v, ok := c.m.Load(weak.Make(op))
	if !ok {
		var zero E
		return zero, false
	}
	return v.(E), true
}

// put makes e the entry of op.
func (c *opCache[E]) put(op *stablehlo.Op, e E) {
	key := weak.Make(op)
	if _, had := c.m.Swap(key, e); !had {
		runtime.AddCleanup(op, func(k weak.Pointer[stablehlo.Op]) { c.m.Delete(k) }, key)
	}
}
