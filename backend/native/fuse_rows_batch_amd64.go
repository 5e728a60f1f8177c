//go:build amd64 && !purego

package native

import "unsafe"

// The AVX-512 loops of fuse_rows_batch_amd64.s: a row chain's step over a
// block of rows in one call, where a call per row cost more than its
// arithmetic (gpt2_tiny's layer norms: rows of 64).

//go:noescape
func addRows32(d, a, b *float32, n, rows, sa, sb int)

//go:noescape
func subRows32(d, a, b *float32, n, rows, sa, sb int)

//go:noescape
func mulRows32(d, a, b *float32, n, rows, sa, sb int)

//go:noescape
func divRows32(d, a, b *float32, n, rows, sa, sb int)

//go:noescape
func addRowsV32(d, a, v *float32, n, rows, sa int)

//go:noescape
func subRowsV32(d, a, v *float32, n, rows, sa int)

//go:noescape
func mulRowsV32(d, a, v *float32, n, rows, sa int)

//go:noescape
func divRowsV32(d, a, v *float32, n, rows, sa int)

//go:noescape
func addVRows32(d, a, v *float32, n, rows, sa int)

//go:noescape
func subVRows32(d, a, v *float32, n, rows, sa int)

//go:noescape
func mulVRows32(d, a, v *float32, n, rows, sa int)

//go:noescape
func divVRows32(d, a, v *float32, n, rows, sa int)

// rowsBatched reports whether op runs over a block of rows in one call
// (binRows, binRowsV, binVRows take their loops of
// fuse_rows_batch_amd64.s): the arithmetic ops where AVX-512 runs.
func rowsBatched(op int) bool { return rowsWide && op >= opAdd && op <= opDiv }

// at is &p[k].
func at(p *float32, k int) *float32 { return (*float32)(unsafe.Add(unsafe.Pointer(p), 4*k)) }

// binRows computes d[r·n+j] = a[r·sa+j] op b[r·sb+j] for rows rows of n
// elements (d's rows end to end; a stride of 0 reads the same row every
// time): one call where rowsBatched, else binRR per row.
func binRows(op int, d, a, b *float32, n, rows, sa, sb int) {
	if rowsBatched(op) {
		switch op {
		case opAdd:
			addRows32(d, a, b, n, rows, sa, sb)
		case opSub:
			subRows32(d, a, b, n, rows, sa, sb)
		case opMul:
			mulRows32(d, a, b, n, rows, sa, sb)
		case opDiv:
			divRows32(d, a, b, n, rows, sa, sb)
		}
		return
	}
	for r := 0; r < rows; r++ {
		binRR(op, at(d, r*n), at(a, r*sa), at(b, r*sb), n)
	}
}

// binRowsV computes d[r·n+j] = a[r·sa+j] op v[r], as binRows.
func binRowsV(op int, d, a, v *float32, n, rows, sa int) {
	if rowsBatched(op) {
		switch op {
		case opAdd:
			addRowsV32(d, a, v, n, rows, sa)
		case opSub:
			subRowsV32(d, a, v, n, rows, sa)
		case opMul:
			mulRowsV32(d, a, v, n, rows, sa)
		case opDiv:
			divRowsV32(d, a, v, n, rows, sa)
		}
		return
	}
	for r := 0; r < rows; r++ {
		binRS(op, at(d, r*n), at(a, r*sa), *at(v, r), n)
	}
}

// binVRows computes d[r·n+j] = v[r] op a[r·sa+j], as binRows.
func binVRows(op int, d, a, v *float32, n, rows, sa int) {
	if rowsBatched(op) {
		switch op {
		case opAdd:
			addVRows32(d, a, v, n, rows, sa)
		case opSub:
			subVRows32(d, a, v, n, rows, sa)
		case opMul:
			mulVRows32(d, a, v, n, rows, sa)
		case opDiv:
			divVRows32(d, a, v, n, rows, sa)
		}
		return
	}
	for r := 0; r < rows; r++ {
		binSR(op, at(d, r*n), *at(v, r), at(a, r*sa), n)
	}
}

//go:noescape
func selMask32(d, x *float32, m *byte, c float32, n int, keep bool)

// selMask sets d[j] = x[j] where m[j] (a bool's byte: true where not
// zero) is keep, else c, for j < len(d) (x and m at least as long; d may
// be x).
func selMask(d, x []float32, m []byte, c float32, keep bool) {
	n := len(d)
	if n == 0 {
		return
	}
	x, m = x[:n], m[:n]
	if rowsWide {
		selMask32(&d[0], &x[0], &m[0], c, n, keep)
		return
	}
	for j, b := range m {
		if (b != 0) == keep {
			d[j] = x[j]
		} else {
			d[j] = c
		}
	}
}
