//go:build amd64 && !purego

package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowsBatchMatchesPerRow checks the block loops (binRows, binRowsV,
// binVRows, selMask) against the scalar loop row by row, bit for bit, on
// rows of odd lengths with NaNs, infinities, signed zeros and subnormals,
// the shared row and the per-row value on either side, and that nothing
// past the block is written; with the AVX-512 loops where the machine
// has them and with the per-row fallback.
func TestRowsBatchMatchesPerRow(t *testing.T) {
	if !simdRows {
		t.Skip("no vector loops on this machine")
	}
	defer func(w bool) { rowsWide = w }(rowsWide)
	for _, wide := range []bool{false, rowsWide} {
		rowsWide = wide
		t.Run(fmt.Sprintf("wide=%v", wide), testRowsBatch)
	}
}

func testRowsBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	names := []string{"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide"}
	for _, n := range []int{1, 5, 12, 15, 16, 17, 31, 33, 64, 100} {
		for _, rows := range []int{1, 2, 7} {
			m := n * rows
			for _, name := range names {
				op := binOp(name)
				x, y, v := simdTestRow(r, m), simdTestRow(r, m), simdTestRow(r, rows)
				col := y[:n]
				check := func(what string, got, want []float32, room []float32) {
					t.Helper()
					checkGuard(t, room, m)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("%s %s n=%d rows=%d: element %d: %#x, scalar loop %#x", what, name, n, rows, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
				want := make([]float32, m)
				for _, c := range []struct {
					what   string
					run    func(d []float32)
					xr, yr func(k int) []float32 // row k's operands for the scalar loop
				}{
					{"rows", func(d []float32) { binRows(op, &d[0], &x[0], &y[0], n, rows, n, n) },
						func(k int) []float32 { return x[k*n : (k+1)*n] }, func(k int) []float32 { return y[k*n : (k+1)*n] }},
					{"row op col", func(d []float32) { binRows(op, &d[0], &x[0], &col[0], n, rows, n, 0) },
						func(k int) []float32 { return x[k*n : (k+1)*n] }, func(int) []float32 { return col }},
					{"col op row", func(d []float32) { binRows(op, &d[0], &col[0], &x[0], n, rows, 0, n) },
						func(int) []float32 { return col }, func(k int) []float32 { return x[k*n : (k+1)*n] }},
					{"row op v", func(d []float32) { binRowsV(op, &d[0], &x[0], &v[0], n, rows, n) },
						func(k int) []float32 { return x[k*n : (k+1)*n] }, func(k int) []float32 { return spreadRow(v[k], n) }},
					{"v op row", func(d []float32) { binVRows(op, &d[0], &x[0], &v[0], n, rows, n) },
						func(k int) []float32 { return spreadRow(v[k], n) }, func(k int) []float32 { return x[k*n : (k+1)*n] }},
				} {
					room := guarded(m)
					c.run(room[:m])
					for k := 0; k < rows; k++ {
						refBinary(name, want[k*n:(k+1)*n], c.xr(k), c.yr(k))
					}
					check(c.what, room[:m], want, room)
				}
				// in place, as a chain runs its steps after the first
				d := append([]float32(nil), x...)
				binRowsV(op, &d[0], &d[0], &v[0], n, rows, n)
				for k := 0; k < rows; k++ {
					refBinary(name, want[k*n:(k+1)*n], x[k*n:(k+1)*n], spreadRow(v[k], n))
				}
				if i := sameBits(d, want); i >= 0 {
					t.Fatalf("in place %s n=%d rows=%d: element %d differs", name, n, rows, i)
				}
			}
			// a mask's select, keeping the value where the mask is true and
			// where it is false
			x := simdTestRow(r, m)
			mask := make([]byte, m+16)
			for i := range mask {
				mask[i] = byte(r.IntN(2))
			}
			c := float32(math.Inf(-1))
			for _, keep := range []bool{true, false} {
				room := guarded(m)
				selMask(room[:m], x, mask, c, keep)
				want := make([]float32, m)
				for j := range want {
					if (mask[j] != 0) == keep {
						want[j] = x[j]
					} else {
						want[j] = c
					}
				}
				checkGuard(t, room, m)
				if i := sameBits(room[:m], want); i >= 0 {
					t.Fatalf("selMask keep=%v n=%d rows=%d: element %d: %#x, want %#x", keep, n, rows, i, math.Float32bits(room[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}
