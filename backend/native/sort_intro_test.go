package native

import (
	"math/rand"
	"testing"
)

// TestIntroSortOrders checks that introSort (std::sort's algorithm) sorts:
// few distinct keys (many ties), sorted and reversed inputs, and a depth
// limit of zero that goes straight to heapsort.
func TestIntroSortOrders(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 5, 16, 17, 100, 1000, 5000} {
		for _, kind := range []string{"ties", "random", "sorted", "reversed", "heap"} {
			keys := make([]int64, n)
			for i := range keys {
				switch kind {
				case "ties":
					keys[i] = rng.Int63n(3)
				case "sorted":
					keys[i] = int64(i)
				case "reversed":
					keys[i] = int64(n - i)
				default:
					keys[i] = rng.Int63n(1000)
				}
			}
			p := make([]int64, n)
			for i := range p {
				p[i] = int64(i)
			}
			less := func(a, b int64) bool { return keys[a] < keys[b] }
			if kind == "heap" {
				heapSortRange(p, less)
			} else {
				introSort(p, less)
			}
			seen := make([]bool, n)
			for i, v := range p {
				if seen[v] {
					t.Fatalf("%s n=%d: index %d twice", kind, n, v)
				}
				seen[v] = true
				if i > 0 && keys[p[i]] < keys[p[i-1]] {
					t.Fatalf("%s n=%d: out of order at %d", kind, n, i)
				}
			}
		}
	}
}

// TestIntroSortBadComparator: a comparator that is no strict weak order
// must not make the unguarded loops run out of range.
func TestIntroSortBadComparator(t *testing.T) {
	p := make([]int64, 500)
	for i := range p {
		p[i] = int64(i)
	}
	introSort(p, func(a, b int64) bool { return true })
	introSort(p, func(a, b int64) bool { return (a+b)%3 == 0 })
}
