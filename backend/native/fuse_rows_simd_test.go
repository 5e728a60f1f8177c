package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

// simdTestRow returns n float32s with NaNs of both signs and several
// payloads, infinities, signed zeros, subnormals and ordinary values,
// starting at an odd offset of a larger array (unaligned).
func simdTestRow(r *rand.Rand, n int) []float32 {
	buf := make([]float32, n+3)
	x := buf[1 : n+1]
	for i := range x {
		switch r.IntN(12) {
		case 0:
			x[i] = math.Float32frombits(0x7fc00000 | uint32(r.IntN(1<<16)) | uint32(r.IntN(2))<<31)
		case 1:
			x[i] = float32(math.Inf(1 - 2*r.IntN(2)))
		case 2:
			x[i] = float32(math.Copysign(0, float64(1-2*r.IntN(2))))
		case 3:
			x[i] = math.Float32frombits(uint32(1 + r.IntN(1000)))
		case 4:
			x[i] = float32(r.IntN(3) - 1)
		default:
			x[i] = float32(r.NormFloat64() * 4)
		}
	}
	return x
}

func sameBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// refBinary is the scalar loop x[k] op y[k] over rows (a uniform operand
// spread over a row first): what the fused loops computed before the
// vector kernels, left operand first.
func refBinary(name string, d, x, y []float32) {
	switch name {
	case "stablehlo.add":
		for k := range d {
			d[k] = x[k] + y[k]
		}
	case "stablehlo.subtract":
		for k := range d {
			d[k] = x[k] - y[k]
		}
	case "stablehlo.multiply":
		for k := range d {
			d[k] = x[k] * y[k]
		}
	case "stablehlo.divide":
		for k := range d {
			d[k] = x[k] / y[k]
		}
	}
}

func spreadRow(v float32, n int) []float32 {
	r := make([]float32, n)
	for i := range r {
		r[i] = v
	}
	return r
}

// guarded returns room for a row of n and 17 more elements holding a mark
// no loop may write over (checkGuard).
func guarded(n int) []float32 {
	room := make([]float32, n+17)
	for i := range room {
		room[i] = -7
	}
	return room
}

func checkGuard(t *testing.T, room []float32, n int) {
	t.Helper()
	for i := n; i < len(room); i++ {
		if room[i] != -7 {
			t.Fatalf("n=%d: wrote element %d past the row", n, i)
		}
	}
}

func TestSimdBinaryMatchesScalar(t *testing.T) {
	if !simdRows {
		t.Skip("no vector loops on this machine")
	}
	// the AVX2 loops, and the AVX-512 ones where the machine has them
	defer func(w bool) { rowsWide = w }(rowsWide)
	for _, wide := range []bool{false, rowsWide} {
		rowsWide = wide
		t.Run(fmt.Sprintf("wide=%v", wide), testSimdBinary)
	}
}

func testSimdBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 95, 100, 511, 512} {
		for _, name := range []string{"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide"} {
			for rep := 0; rep < 20; rep++ {
				x, y := simdTestRow(r, n), simdTestRow(r, n)
				for mix := 0; mix < 3; mix++ {
					ux, uy := mix == 1, mix == 2
					xa, ya, xr, yr := x, y, x, y
					if ux {
						xa, xr = x[:1], spreadRow(x[0], n)
					}
					if uy {
						ya, yr = y[:1], spreadRow(y[0], n)
					}
					room := guarded(n)
					got, want := room[:n], make([]float32, n)
					if !simdBinary(name, got, xa, ya, ux, uy) {
						t.Fatalf("%s: vector loop not taken", name)
					}
					checkGuard(t, room, n)
					refBinary(name, want, xr, yr)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("%s n=%d ux=%v uy=%v: element %d: %v (%#x) op %v (%#x) = %#x, scalar loop %#x", name, n, ux, uy, i,
							xr[i], math.Float32bits(xr[i]), yr[i], math.Float32bits(yr[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
			}
		}
	}
}

// TestSimdCmpSelectMatchesScalar checks the compare-select loops against
// the scalar one, bit for bit: b uniform with x, y or neither uniform, and
// every operand a row.
func TestSimdCmpSelectMatchesScalar(t *testing.T) {
	if !simdRows {
		t.Skip("no vector loops on this machine")
	}
	defer func(w bool) { rowsWide = w }(rowsWide)
	for _, wide := range []bool{false, rowsWide} {
		rowsWide = wide
		t.Run(fmt.Sprintf("wide=%v", wide), testSimdCmpSelect)
	}
}

func testSimdCmpSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, n := range []int{1, 5, 8, 13, 15, 16, 17, 31, 32, 40, 49, 512} {
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			for rep := 0; rep < 20; rep++ {
				a, b, x, y := simdTestRow(r, n), simdTestRow(r, 1), simdTestRow(r, n), simdTestRow(r, n)
				if rep%2 == 0 {
					b[0] = a[r.IntN(n)] // ties
				}
				for mix := 0; mix < 3; mix++ {
					ux, uy := mix == 1, mix == 2
					xa, ya, xr, yr := x, y, x, y
					if ux {
						xa, xr = x[:1], spreadRow(x[0], n)
					}
					if uy {
						ya, yr = y[:1], spreadRow(y[0], n)
					}
					room := guarded(n)
					got, want := room[:n], make([]float32, n)
					if !simdCmpSelect(dir, got, a, b[0], xa, ya, ux, uy) {
						t.Fatalf("%s: vector loop not taken", dir)
					}
					checkGuard(t, room, n)
					cmpSelect32(want, a, spreadRow(b[0], n), xr, yr, dir)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("%s n=%d ux=%v uy=%v: element %d: a %v b %v: %#x, scalar loop %#x", dir, n, ux, uy, i, a[i], b[0], math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
				// every operand a row, b tying a in a third of its lanes
				br := simdTestRow(r, n)
				for i := range br {
					if r.IntN(3) == 0 {
						br[i] = a[i]
					}
				}
				room := guarded(n)
				got, want := room[:n], make([]float32, n)
				if !simdCmpSelectRows(dir, got, a, br, x, y) {
					t.Fatalf("%s: rows loop not taken", dir)
				}
				checkGuard(t, room, n)
				cmpSelect32(want, a, br, x, y, dir)
				if i := sameBits(got, want); i >= 0 {
					t.Fatalf("%s n=%d rows: element %d: a %v b %v: %#x, scalar loop %#x", dir, n, i, a[i], br[i], math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}

// TestLoadRowBools: a mask's bytes read as 0 and 1 (any nonzero byte is
// true), 8 a step and the rest one by one, for every length and offset up
// to 40, with the elements past the row left alone.
func TestLoadRowBools(t *testing.T) {
	data := make([]byte, 64)
	for i := range data {
		data[i] = []byte{0, 1, 0, 0x80, 2, 0, 0, 1, 0xff}[i%9]
	}
	for c := int64(0); c < 8; c++ {
		for n := 0; n <= 40; n++ {
			dst := make([]float32, n+3)
			for k := range dst {
				dst[k] = -7
			}
			loadRow(dst[:n], data, dtype.Bool, c)
			for k := 0; k < n; k++ {
				want := float32(0)
				if data[c+int64(k)] != 0 {
					want = 1
				}
				if dst[k] != want {
					t.Fatalf("offset %d, %d elements: element %d is %v, want %v", c, n, k, dst[k], want)
				}
			}
			for k := n; k < len(dst); k++ {
				if dst[k] != -7 {
					t.Fatalf("offset %d, %d elements: element %d past the row written", c, n, k)
				}
			}
		}
	}
}
