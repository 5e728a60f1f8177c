package native

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

// TestWidenF32Kernels checks the vector float32 → float64 loops (loadRow's
// conversion of a float32 leaf into a float64 chunk, and addF32To64, the
// column sums of float32 values in float64) bit for bit against their
// scalar forms: every length from 0 to 40 (the tails), NaNs of both signs
// and several payloads (signalling ones too, in the data and in the
// accumulators), infinities, signed zeros and subnormals.
func TestWidenF32Kernels(t *testing.T) {
	if !simdRows {
		t.Skip("no vector loops on this CPU or build")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 40; n++ {
		for rep := 0; rep < 20; rep++ {
			x := simdTestRow(r, n)
			for i := range x {
				if r.IntN(16) == 0 { // a signalling NaN
					x[i] = math.Float32frombits(0x7f800001 | uint32(r.IntN(1<<20)) | uint32(r.IntN(2))<<31)
				}
			}
			raw := make([]byte, 4*n+8)
			for i, v := range x {
				binary.LittleEndian.PutUint32(raw[4+4*i:], math.Float32bits(v))
			}
			got := make([]float64, n)
			loadRow(got, raw[4:], dtype.F32, 0)
			for i, v := range x {
				if want := float64(v); math.Float64bits(got[i]) != math.Float64bits(want) && !(v != v && got[i] != got[i] && quietBits(want) == math.Float64bits(got[i])) {
					t.Fatalf("loadRow n=%d [%d]: %x from %x, want %x", n, i, math.Float64bits(got[i]), math.Float32bits(v), math.Float64bits(want))
				}
			}
			acc := make([]float64, n)
			for i := range acc {
				switch r.IntN(10) {
				case 0:
					acc[i] = math.Float64frombits(0x7ff8000000000000 | uint64(r.IntN(1<<30)) | uint64(r.IntN(2))<<63)
				case 1:
					acc[i] = math.Float64frombits(0x7ff0000000000001 | uint64(r.IntN(1<<30))) // signalling
				case 2:
					acc[i] = math.Inf(1 - 2*r.IntN(2))
				default:
					acc[i] = r.NormFloat64() * 1e3
				}
			}
			want := append([]float64(nil), acc...)
			for j, v := range x {
				if a := want[j]; a == a {
					want[j] = a + float64(v)
				}
			}
			addF32To64(acc, x)
			for i := range acc {
				if math.Float64bits(acc[i]) != math.Float64bits(want[i]) {
					t.Fatalf("addF32To64 n=%d [%d]: %x, want %x (x %x)", n, i, math.Float64bits(acc[i]), math.Float64bits(want[i]), math.Float32bits(x[i]))
				}
			}
		}
	}
}

// quietBits is the bits of a float64 NaN with its quiet bit set.
func quietBits(f float64) uint64 { return math.Float64bits(f) | 1<<51 }
