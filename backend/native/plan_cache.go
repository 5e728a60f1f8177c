package native

import (
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// opCache keeps the last plan of each op (the dot, reduce and transpose
// fast paths plan once per op and operand shapes). Entries are found by
// the op's address and hold a weak pointer to it: an entry whose op was
// collected (its address perhaps reused) is not its op's, and a cleanup
// drops it. The caller checks that an entry's shapes still match. (Keyed
// by the weak pointer itself, every lookup made one, ~70 ns, a lock in
// the runtime: ~50 lookups per run of a small CNN.)
type opCache[E any] struct {
	mu sync.RWMutex
	m  map[uintptr]*opEntry[E]
}

type opEntry[E any] struct {
	op weak.Pointer[stablehlo.Op]
	e  E
}

// get returns the entry of op, if any.
func (c *opCache[E]) get(op *stablehlo.Op) (E, bool) {
	c.mu.RLock()
	en := c.m[uintptr(unsafe.Pointer(op))]
	c.mu.RUnlock()
	if en == nil || en.op.Value() != op {
		var zero E
		return zero, false
	}
	return en.e, true
}

// put makes e the entry of op.
func (c *opCache[E]) put(op *stablehlo.Op, e E) {
	key := uintptr(unsafe.Pointer(op))
	en := &opEntry[E]{op: weak.Make(op), e: e}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[uintptr]*opEntry[E]{}
	}
	prev := c.m[key]
	c.m[key] = en
	c.mu.Unlock()
	if prev == nil || prev.op != en.op {
		// a new op at this address: drop its entry when it is collected
		// (unless another op has taken the address by then)
		runtime.AddCleanup(op, func(k uintptr) {
			c.mu.Lock()
			if cur := c.m[k]; cur != nil && cur.op.Value() == nil {
				delete(c.m, k)
			}
			c.mu.Unlock()
		}, key)
	}
}
