package native

import (
	"math/rand"
	"testing"
)

// TestSpanSetMatchesScan checks the set's overlap query against a scan of
// the ranges added, on random sets with nested, touching, overlapping and
// empty ranges.
func TestSpanSetMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var ps spanSet
	for trial := 0; trial < 200; trial++ {
		ps.reset()
		var list []span
		n := rng.Intn(40)
		for i := 0; i < n; i++ {
			lo := uintptr(rng.Intn(200))
			sp := span{lo, lo + uintptr(rng.Intn(30))}
			ps.add(sp)
			list = append(list, sp)
			for q := 0; q < 20; q++ {
				qlo := uintptr(rng.Intn(240))
				qs := span{qlo, qlo + uintptr(rng.Intn(20))}
				if got, want := ps.overlaps(qs), overlapsAny(qs, list); got != want {
					t.Fatalf("set %v: overlaps(%v) = %v, a scan says %v", list, qs, got, want)
				}
			}
		}
	}
}
