package aten

import (
	"fmt"
	"sort"
	"strings"
)

// einsumSpec is a parsed einsum equation with the ellipsis expanded into
// labels of its own (negative numbers), so that every operand dim has one
// label. Labels of letters are their byte values.
type einsumSpec struct {
	inputs [][]int // labels per operand dim
	output []int
}

// parseEinsum parses an equation for operands of the given ranks, following
// torch.einsum: spaces are ignored, "..." stands for the broadcast dims,
// and without "->" the output holds the labels seen exactly once, in
// alphabetical order (upper case first), after the ellipsis dims.
func parseEinsum(eq string, ranks []int) (*einsumSpec, error) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ranks) {
		return nil, fmt.Errorf("einsum %q has %d operand terms but %d operands were given", eq, len(terms), len(ranks))
	}
	spec := &einsumSpec{}
	ellRank := 0
	count := map[int]int{}
	for i, t := range terms {
		labels, hasEll, err := einsumLabels(t)
		if err != nil {
			return nil, fmt.Errorf("einsum %q: %w", eq, err)
		}
		n := len(labels)
		if hasEll {
			n--
		}
		if (!hasEll && n != ranks[i]) || (hasEll && n > ranks[i]) {
			return nil, fmt.Errorf("einsum %q: term %q does not match operand %d of rank %d", eq, t, i, ranks[i])
		}
		var full []int
		for _, l := range labels {
			if l != einsumEllipsis {
				full = append(full, l)
				count[l]++
				continue
			}
			k := ranks[i] - n
			if k > ellRank {
				ellRank = k
			}
			// Ellipsis dims align from the right, as broadcasting does.
			for j := 0; j < k; j++ {
				full = append(full, -(k - j))
			}
		}
		spec.inputs = append(spec.inputs, full)
	}
	ell := make([]int, ellRank)
	for j := range ell {
		ell[j] = -(ellRank - j)
	}
	if explicit {
		labels, hasEll, err := einsumLabels(rhs)
		if err != nil {
			return nil, fmt.Errorf("einsum %q: %w", eq, err)
		}
		seen := map[int]bool{}
		for _, l := range labels {
			if l == einsumEllipsis {
				spec.output = append(spec.output, ell...)
				continue
			}
			if seen[l] {
				return nil, fmt.Errorf("einsum %q: output label %q repeated", eq, rune(l))
			}
			if count[l] == 0 {
				return nil, fmt.Errorf("einsum %q: output label %q does not appear in the inputs", eq, rune(l))
			}
			seen[l] = true
			spec.output = append(spec.output, l)
		}
		// Without "..." in the output the broadcast dims are summed, as any
		// label the output omits.
		_ = hasEll
		return spec, nil
	}
	spec.output = append(spec.output, ell...)
	var once []int
	for l, c := range count {
		if c == 1 {
			once = append(once, l)
		}
	}
	sort.Ints(once) // 'A'..'Z' sort before 'a'..'z' in byte order
	spec.output = append(spec.output, once...)
	return spec, nil
}

const einsumEllipsis = -1000

// einsumLabels splits a term into letter labels and at most one ellipsis.
func einsumLabels(t string) ([]int, bool, error) {
	var out []int
	hasEll := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '.':
			if hasEll || !strings.HasPrefix(t[i:], "...") {
				return nil, false, fmt.Errorf("malformed ellipsis in %q", t)
			}
			hasEll = true
			out = append(out, einsumEllipsis)
			i += 2
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			out = append(out, int(c))
		default:
			return nil, false, fmt.Errorf("invalid subscript %q in %q", c, t)
		}
	}
	return out, hasEll, nil
}
