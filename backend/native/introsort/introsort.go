// Package introsort sorts int64s (a sort's indices) by a comparator with
// libstdc++'s std::sort algorithm, for package native's unstable
// stablehlo.sort (sort.go), which calls Sort with the comparator region's
// order on the operands' elements.
package introsort

// Sort sorts p by less exactly as libstdc++'s std::sort does
// (bits/stl_algo.h: introsort with a median-of-three pivot, heapsort past
// 2*log2(n) levels, then insertion sort over runs of 16), so that an
// unstable stablehlo.sort orders ties the way PyTorch's CPU sort with
// stable=False (and its mode kernel) does. The unguarded loops of the C++
// code are guarded here: a comparator that is not a strict weak order
// gives some permutation, never an out-of-range access.
func Sort(p []int64, less func(a, b int64) bool) {
	n := len(p)
	if n < 2 {
		return
	}
	lg := 0
	for m := n; m > 1; m >>= 1 {
		lg++
	}
	introLoop(p, 0, n, 2*lg, less)
	introFinalInsertion(p, 0, n, less)
}

const introThreshold = 16

func introLoop(p []int64, first, last, depth int, less func(a, b int64) bool) {
	for last-first > introThreshold {
		if depth == 0 {
			heapSortRange(p[first:last], less)
			return
		}
		depth--
		cut := introPartitionPivot(p, first, last, less)
		introLoop(p, cut, last, depth, less)
		last = cut
	}
}

func introPartitionPivot(p []int64, first, last int, less func(a, b int64) bool) int {
	mid := first + (last-first)/2
	moveMedianToFirst(p, first, first+1, mid, last-1, less)
	// Unguarded partition of [first+1, last) around p[first].
	lo, hi := first+1, last
	pivot := p[first]
	for {
		for lo < last-1 && less(p[lo], pivot) {
			lo++
		}
		hi--
		for hi > first && less(pivot, p[hi]) {
			hi--
		}
		if lo >= hi {
			return lo
		}
		p[lo], p[hi] = p[hi], p[lo]
		lo++
	}
}

func moveMedianToFirst(p []int64, result, a, b, c int, less func(x, y int64) bool) {
	swap := func(i int) { p[result], p[i] = p[i], p[result] }
	switch {
	case less(p[a], p[b]):
		switch {
		case less(p[b], p[c]):
			swap(b)
		case less(p[a], p[c]):
			swap(c)
		default:
			swap(a)
		}
	case less(p[a], p[c]):
		swap(a)
	case less(p[b], p[c]):
		swap(c)
	default:
		swap(b)
	}
}

func introFinalInsertion(p []int64, first, last int, less func(a, b int64) bool) {
	if last-first > introThreshold {
		insertionSort(p, first, first+introThreshold, less)
		for i := first + introThreshold; i < last; i++ {
			linearInsert(p, first, i, less)
		}
		return
	}
	insertionSort(p, first, last, less)
}

func insertionSort(p []int64, first, last int, less func(a, b int64) bool) {
	for i := first + 1; i < last; i++ {
		if less(p[i], p[first]) {
			v := p[i]
			copy(p[first+1:i+1], p[first:i])
			p[first] = v
		} else {
			linearInsert(p, first, i, less)
		}
	}
}

// linearInsert is __unguarded_linear_insert, stopping at first.
func linearInsert(p []int64, first, last int, less func(a, b int64) bool) {
	v := p[last]
	next := last - 1
	for next >= first && less(v, p[next]) {
		p[last] = p[next]
		last = next
		next--
	}
	p[last] = v
}

// heapSortRange is std::__partial_sort(first, last, last): make_heap, then
// sort_heap.
func heapSortRange(p []int64, less func(a, b int64) bool) {
	n := len(p)
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		adjustHeap(p, parent, n, p[parent], less)
		if parent == 0 {
			break
		}
	}
	for last := n - 1; last > 0; last-- {
		v := p[last]
		p[last] = p[0]
		adjustHeap(p, 0, last, v, less)
	}
}

func adjustHeap(p []int64, hole, n int, v int64, less func(a, b int64) bool) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(p[child], p[child-1]) {
			child--
		}
		p[hole] = p[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		p[hole] = p[child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(p[parent], v) {
		p[hole] = p[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	p[hole] = v
}
