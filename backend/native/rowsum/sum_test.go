package rowsum

import (
	"math"
	"math/rand/v2"
	"testing"
)

// slotSum is init + Σ x in the slots' order, written out apart: element
// i into slot i%64 in order, the four groups of 16 slots pairwise, then
// the 16 lanes by halves.
func slotSum(init float32, x []float32) float32 {
	var slot [64]float32
	for i, v := range x {
		slot[i%64] += v
	}
	var l [16]float32
	for j := range l {
		l[j] = (slot[j] + slot[16+j]) + (slot[32+j] + slot[48+j])
	}
	a := [8]float32{}
	for j := range a {
		a[j] = l[j] + l[j+8]
	}
	b := [4]float32{a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]}
	c := [2]float32{b[0] + b[2], b[1] + b[3]}
	return init + (c[0] + c[1])
}

// TestSumSlots checks Sum and Slots against slotSum on rows of every
// length up to 300, whole and in chunks of odd sizes, and that a NaN or
// a -0 total falls back to the one-chain sum.
func TestSumSlots(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for n := 0; n <= 300; n++ {
		// the row inside a larger buffer, with numbers after it that a
		// vector loop reading past its end would add
		buf := make([]float32, n+64)
		for i := range buf {
			buf[i] = float32(r.NormFloat64() * 100)
		}
		x := buf[:n]
		want := slotSum(0.5, x)
		if got := Sum(0.5, x); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("n=%d: Sum %v, want %v", n, got, want)
		}
		var rs Slots
		for pos := 0; pos < n; {
			m := min(n-pos, 1+r.IntN(100))
			rs.Add(x[pos:pos+m], pos)
			pos += m
		}
		if got := 0.5 + rs.Total(); n > 0 && math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("n=%d: chunked %v, want %v", n, got, want)
		}
	}
	nan := []float32{1, math.Float32frombits(0x7fa00001), math.Float32frombits(0xffc00123), 2}
	if got := Sum(0, nan); math.Float32bits(got) != math.Float32bits(float32(0)+1+nan[1]) {
		t.Fatalf("NaN sum %#x, want the first NaN's", math.Float32bits(got))
	}
	negz := float32(math.Copysign(0, -1))
	if got := Sum(negz, []float32{negz, negz}); !math.Signbit(float64(got)) {
		t.Fatalf("sum of -0s from -0: %v, want -0", got)
	}
}

// TestRowsMatchOneRow checks SumRows and MaxRows against Sum and Max row
// by row, for rows of 1 to 150 elements, blocks of 1 to 9 rows with
// numbers after them, NaNs, infinities and a -0 start.
func TestRowsMatchOneRow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	negz := float32(math.Copysign(0, -1))
	for n := 1; n <= 150; n++ {
		for rows := 1; rows <= 9; rows += 4 {
			buf := make([]float32, rows*n+64)
			for i := range buf {
				buf[i] = float32(r.NormFloat64() * 100)
			}
			x := buf[:rows*n]
			switch n % 5 {
			case 1:
				x[r.IntN(len(x))] = float32(math.NaN())
			case 2:
				x[r.IntN(len(x))] = float32(math.Inf(1))
			case 3:
				for i := range x[:n] {
					x[i] = negz
				}
			}
			for _, init := range []float32{0.5, negz} {
				got := make([]float32, rows)
				SumRows(init, x, n, got)
				for k := range got {
					want := Sum(init, x[k*n:(k+1)*n])
					if math.Float32bits(got[k]) != math.Float32bits(want) {
						t.Fatalf("n=%d rows=%d init=%v row %d: SumRows %v, Sum %v", n, rows, init, k, got[k], want)
					}
				}
			}
			if !HasMax() {
				continue
			}
			got, nan := make([]float32, rows), make([]bool, rows)
			MaxRows(x, n, got, nan)
			for k := range got {
				m, isNaN := Max(x[k*n : (k+1)*n])
				if nan[k] != isNaN || !isNaN && math.Float32bits(got[k]) != math.Float32bits(m) {
					t.Fatalf("n=%d rows=%d row %d: MaxRows %v %v, Max %v %v", n, rows, k, got[k], nan[k], m, isNaN)
				}
			}
		}
	}
}
