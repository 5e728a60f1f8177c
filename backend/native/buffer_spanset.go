package native

import (
	"slices"
	"sort"
)

// spanSet holds the byte ranges a run must never recycle or write in
// place: its arguments, constants, kept weight folds and the planned
// block. Most ranges are kept sorted by start with the running maximum of
// their ends, so that asking whether bytes overlap any of them is one
// binary search: a fused block of the tpu device has hundreds of
// arguments, and every value released asks. Ranges added since the last
// merge (at most tailMax) are scanned.
type spanSet struct {
	s     []span    // s[:n] sorted by start; s[n:] added since
	n     int       // the sorted prefix
	maxHi []uintptr // maxHi[i]: the largest end of s[:i+1], i < n
	merge []span    // scratch of the merge
	// base is another set asked too, read only: a plan's constants,
	// the same bytes every run (execPlan.consts)
	base *spanSet
}

// tailMax is how many ranges wait, scanned by each query, before they are
// merged into the sorted prefix.
const tailMax = 16

// reset empties the set, keeping its storage.
func (ps *spanSet) reset() {
	ps.s, ps.n, ps.maxHi, ps.base = ps.s[:0], 0, ps.maxHi[:0], nil
}

// add puts sp in the set; an empty range is not kept (it overlaps
// nothing).
func (ps *spanSet) add(sp span) {
	if sp.lo == sp.hi {
		return
	}
	ps.s = append(ps.s, sp)
	if len(ps.s)-ps.n > tailMax {
		ps.settle()
	}
}

// addValue adds the byte ranges of the tensors in v.
func (ps *spanSet) addValue(v Value) {
	var buf [4]span
	for _, sp := range valueSpans(buf[:0], v) {
		ps.add(sp)
	}
}

// settle merges the ranges added since the last merge into the sorted
// prefix.
func (ps *spanSet) settle() {
	tail := ps.s[ps.n:]
	slices.SortFunc(tail, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	m := ps.merge[:0]
	i, j := 0, ps.n
	for i < ps.n || j < len(ps.s) {
		if j == len(ps.s) || i < ps.n && ps.s[i].lo <= ps.s[j].lo {
			m = append(m, ps.s[i])
			i++
		} else {
			m = append(m, ps.s[j])
			j++
		}
	}
	ps.s, ps.merge = append(ps.s[:0], m...), m
	ps.n = len(ps.s)
	ps.maxHi = ps.maxHi[:0]
	var hi uintptr
	for _, sp := range ps.s {
		hi = max(hi, sp.hi)
		ps.maxHi = append(ps.maxHi, hi)
	}
}

// overlaps reports whether sp shares a byte with a range of the set.
func (ps *spanSet) overlaps(sp span) bool {
	if sp.lo == sp.hi {
		return false
	}
	for _, t := range ps.s[ps.n:] {
		if sp.overlaps(t) {
			return true
		}
	}
	// the sorted ranges starting before sp ends; one of them overlaps sp
	// when the furthest end among them lies past sp's start
	i := sort.Search(ps.n, func(i int) bool { return ps.s[i].lo >= sp.hi })
	if i > 0 && ps.maxHi[i-1] > sp.lo {
		return true
	}
	return ps.base != nil && ps.base.overlaps(sp)
}
