package introsort

import (
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestIntroSortOrders checks that Sort (std::sort's algorithm) sorts:
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
				Sort(p, less)
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
	Sort(p, func(a, b int64) bool { return true })
	Sort(p, func(a, b int64) bool { return (a+b)%3 == 0 })
}

// TestIntroSortMatchesTorch compares Sort's order among ties with the
// indices of torch.sort(x, stable=False) from the reference PyTorch
// (testdata/torch_sort_ties.txt, written by the torch-oracle).
func TestIntroSortMatchesTorch(t *testing.T) {
	b, err := os.ReadFile("testdata/torch_sort_ties.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines)%3 != 0 || len(lines) == 0 {
		t.Fatalf("%d lines, want groups of 3", len(lines))
	}
	for i := 0; i < len(lines); i += 3 {
		xs, want := strings.Fields(lines[i+1]), strings.Fields(lines[i+2])
		keys := make([]float64, len(xs))
		for j, s := range xs {
			if keys[j], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		p := make([]int64, len(keys))
		for j := range p {
			p[j] = int64(j)
		}
		Sort(p, func(a, b int64) bool { return keys[a] < keys[b] })
		for j := range p {
			if strconv.FormatInt(p[j], 10) != want[j] {
				t.Fatalf("%s n=%d: position %d has index %d, torch has %s", lines[i], len(keys), j, p[j], want[j])
			}
		}
	}
}
