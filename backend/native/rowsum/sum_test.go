package rowsum

import (
	"math"
	"math/rand/v2"
	"testing"
)

// forms runs f in each vector form the CPU has: the widest, then the
// AVX2 one where AVX-512 runs (sum512 off).
func forms(t *testing.T, f func(t *testing.T)) {
	t.Run("widest", f)
	if sum512 {
		sum512 = false
		defer func() { sum512 = true }()
		t.Run("avx2", f)
	}
}

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
func TestSumSlots(t *testing.T) { forms(t, testSumSlots) }

func testSumSlots(t *testing.T) {
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
func TestRowsMatchOneRow(t *testing.T) { forms(t, testRowsMatchOneRow) }

func testRowsMatchOneRow(t *testing.T) {
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

// laneMax is the vector maximum written out apart: element i into lane
// i%16 by x86's max (the second operand unless the first is greater),
// then the lanes by halves, 8, 4, 2 and 1 apart.
func laneMax(x []float32) float32 {
	mx := func(a, b float32) float32 {
		if a > b {
			return a
		}
		return b
	}
	var l [16]float32
	for j := range l {
		l[j] = float32(math.Inf(-1))
	}
	for i, v := range x {
		l[i%16] = mx(l[i%16], v)
	}
	for h := 8; h >= 1; h /= 2 {
		for j := 0; j < h; j++ {
			l[j] = mx(l[j], l[j+h])
		}
	}
	return l[0]
}

// TestMaxLanes checks Max against laneMax, bit for bit, on rows of 8 to
// 100 elements of mixed signed zeros and numbers, and its NaN flag.
func TestMaxLanes(t *testing.T) { forms(t, testMaxLanes) }

func testMaxLanes(t *testing.T) {
	if !HasMax() {
		t.Skip("no vector maximum on this CPU")
	}
	r := rand.New(rand.NewPCG(5, 6))
	negz := float32(math.Copysign(0, -1))
	for n := 8; n <= 100; n++ {
		for trial := 0; trial < 4; trial++ {
			buf := make([]float32, n+16)
			for i := range buf {
				switch r.IntN(4) {
				case 0:
					buf[i] = negz
				case 1:
					buf[i] = 0
				default:
					buf[i] = -float32(r.IntN(3)) // ties with the zeros
				}
			}
			x := buf[:n]
			if trial == 3 {
				x[r.IntN(n)] = float32(math.NaN())
			}
			m, nan := Max(x)
			if nan != (trial == 3) {
				t.Fatalf("n=%d trial %d: NaN flag %v", n, trial, nan)
			}
			if want := laneMax(x); !nan && math.Float32bits(m) != math.Float32bits(want) {
				t.Fatalf("n=%d trial %d: Max %v (%#x), want %v (%#x)", n, trial, m, math.Float32bits(m), want, math.Float32bits(want))
			}
		}
	}
}
