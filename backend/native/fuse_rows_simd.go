package native

// The fused loops' vector kernels (AVX2, fuse_rows_simd_amd64.s) for the
// hottest f32 nodes: add, subtract, multiply, divide, maximum and minimum
// of rows and uniform values, select(compare(a, b), x, y) with a uniform
// b, and nanSelect's select(compare(NE, a, a), a, y) of rows.

// Indexes of the arithmetic ops for binRR/binRS/binSR.
const (
	opAdd = iota
	opSub
	opMul
	opDiv
	opMax
	opMin
)

// binOp returns the index of an arithmetic op for binRR/binRS/binSR.
func binOp(name string) int {
	switch name {
	case "stablehlo.add":
		return opAdd
	case "stablehlo.subtract":
		return opSub
	case "stablehlo.multiply":
		return opMul
	case "stablehlo.divide":
		return opDiv
	case "stablehlo.maximum":
		return opMax
	case "stablehlo.minimum":
		return opMin
	}
	return -1
}

// simdBinary computes d = x op y over len(d) elements, x or y uniform
// (one element) where ux or uy is set (not both). It reports false where
// the vector loops do not apply.
func simdBinary(name string, d, x, y []float32, ux, uy bool) bool {
	op := binOp(name)
	if !simdRows || op < 0 || ux && uy || len(d) == 0 {
		return false
	}
	n := len(d)
	switch {
	case ux:
		y = y[:n]
		binSR(op, &d[0], x[0], &y[0], n)
	case uy:
		x = x[:n]
		binRS(op, &d[0], &x[0], y[0], n)
	default:
		x, y = x[:n], y[:n]
		binRR(op, &d[0], &x[0], &y[0], n)
	}
	return true
}

// Predicates of the select kernels; the last four are the negations
// (true on NaN) that a select with its operands swapped needs.
const (
	predEQ = iota
	predNE
	predLT
	predLE
	predGT
	predGE
	predNLT
	predNLE
	predNGT
	predNGE
)

func simdPred(dir string) (p, neg int) {
	switch dir {
	case "EQ":
		return predEQ, predNE
	case "NE":
		return predNE, predEQ
	case "LT":
		return predLT, predNLT
	case "LE":
		return predLE, predNLE
	case "GT":
		return predGT, predNGT
	case "GE":
		return predGE, predNGE
	}
	return -1, -1
}

// simdCmpSelect computes d = (a dir b) ? x : y over len(d) elements with
// a a row, b uniform and at most one of x, y uniform. It reports false
// where the vector loops do not apply.
func simdCmpSelect(dir string, d, a []float32, b float32, x, y []float32, ux, uy bool) bool {
	p, neg := simdPred(dir)
	if !simdRows || p < 0 || ux && uy || len(d) == 0 {
		return false
	}
	if uy {
		// (a dir b) ? x : ys is !(a dir b) ? ys : x.
		p, x, y, ux = neg, y, x, true
	}
	n := len(d)
	a = a[:n]
	y = y[:n]
	if ux {
		selSR(p, &d[0], &a[0], b, x[0], &y[0], n)
		return true
	}
	x = x[:n]
	selRR(p, &d[0], &a[0], b, &x[0], &y[0], n)
	return true
}

// simdCmpSelectRows computes d = (a dir b) ? x : y over len(d) elements,
// every operand a row (the same lanes as cmpSelect32: a compare false on
// NaN but for NE, a bitwise pick of x or y). It reports false where the
// vector loops do not apply.
func simdCmpSelectRows(dir string, d, a, b, x, y []float32) bool {
	p, _ := simdPred(dir)
	if !simdRows || p < 0 || len(d) == 0 {
		return false
	}
	n := len(d)
	a, b, x, y = a[:n], b[:n], x[:n], y[:n]
	selRRR(p, &d[0], &a[0], &b[0], &x[0], &y[0], n)
	return true
}

// segsSIMD computes a binary or compare-select node over segments of seg
// elements, uniform operands holding one value per segment, straight
// through the vector loops (the per-segment path of computeNode without
// its per-call dispatch). It reports false where they do not apply.
func segsSIMD[T fnum](nd *fuseNode, s *fuseScratch[T], own []T, seg int) bool {
	d, ok := any(own).([]float32)
	if !ok || !simdRows {
		return false
	}
	cur := any(s.cur).([][]float32)
	a := nd.args
	switch nd.kind {
	case fkBinary:
		op := binOp(nd.name)
		x, y := cur[a[0]], cur[a[1]]
		ux, uy := s.uni[a[0]], s.uni[a[1]]
		if op < 0 || ux && uy {
			return false
		}
		for j, o := 0, 0; o < len(d); j, o = j+1, o+seg {
			switch {
			case ux:
				binSR(op, &d[o], x[j], &y[o], seg)
			case uy:
				binRS(op, &d[o], &x[o], y[j], seg)
			}
		}
		return true
	case fkCmpSelect:
		p, neg := simdPred(nd.cmp)
		av, bv, x, y := cur[a[0]], cur[a[1]], cur[a[2]], cur[a[3]]
		ux, uy := s.uni[a[2]], s.uni[a[3]]
		if p < 0 || s.uni[a[0]] || !s.uni[a[1]] || ux && uy {
			return false
		}
		if uy {
			p, x, y, ux = neg, y, x, true
		}
		for j, o := 0, 0; o < len(d); j, o = j+1, o+seg {
			if ux {
				selSR(p, &d[o], &av[o], bv[j], x[j], &y[o], seg)
			} else {
				selRR(p, &d[o], &av[o], bv[j], &x[o], &y[o], seg)
			}
		}
		return true
	}
	return false
}

// isNaNPick reports whether select(compare(a, b), x, y) is nanSelect's
// isnan(a) ? a : y (a, b and x one row, NE) and the vector loop runs it.
func isNaNPick(d, a, b, x []float32, dir string) bool {
	return simdRows && dir == "NE" && len(d) > 0 && &a[0] == &b[0] && &a[0] == &x[0]
}
