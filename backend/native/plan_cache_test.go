package native

import (
	"runtime"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestOpCacheFollowsOps: an entry is its op's alone, and goes when the
// op is collected.
func TestOpCacheFollowsOps(t *testing.T) {
	var c opCache[int]
	a, b := &stablehlo.Op{Name: "a"}, &stablehlo.Op{Name: "b"}
	c.put(a, 1)
	if v, ok := c.get(a); !ok || v != 1 {
		t.Fatalf("get(a) = %v, %v", v, ok)
	}
	if _, ok := c.get(b); ok {
		t.Fatal("b found a's entry")
	}
	c.put(a, 2) // replaced, one cleanup
	if v, _ := c.get(a); v != 2 {
		t.Fatalf("get(a) = %v after the second put", v)
	}
	runtime.KeepAlive(a)
	a = nil
	for i := 0; i < 50; i++ {
		runtime.GC()
		c.mu.RLock()
		n := len(c.m)
		c.mu.RUnlock()
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the entry of a collected op stayed")
}
