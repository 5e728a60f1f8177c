package native

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// For integer exponents the exact power is a product: compute it with
// big.Float and compare the rounded result.
func TestPowAccurateIntegerExponents(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	worst := 0.0
	for i := 0; i < 2000; i++ {
		x := 0.5 + rng.Float64()
		n := 1 + rng.Intn(200)
		exact := new(big.Float).SetPrec(2000).SetFloat64(1)
		bx := new(big.Float).SetPrec(2000).SetFloat64(x)
		for j := 0; j < n; j++ {
			exact.Mul(exact, bx)
		}
		want, _ := exact.Float64()
		got := powAccurate(x, float64(n))
		if d := math.Abs(got-want) / math.Abs(math.Nextafter(want, math.Inf(1))-want); d > worst {
			worst = d
		}
	}
	// math.Pow is off by up to ~20 ULP on this set; the double-double
	// log keeps y·log(x) to about 2^-60, so 2 ULP at these exponents.
	if worst > 2 {
		t.Errorf("worst error %.2f ULP, want at most 2", worst)
	}
}

func TestPowAccurateSpecialCases(t *testing.T) {
	cases := [][3]float64{
		{-2, 3, -8},
		{-2, 2, 4},
		{0, 2, 0},
		{1, math.NaN(), 1},
		{math.NaN(), 0, 1},
		{4, -0.5, 0.5},
		{10, 400, math.Inf(1)},
		{0.5, 1100, 0},
	}
	for _, c := range cases {
		if got := powAccurate(c[0], c[1]); got != c[2] {
			t.Errorf("pow(%v, %v) = %v, want %v", c[0], c[1], got, c[2])
		}
	}
	if got := powAccurate(2, 0.5); math.Abs(got-math.Sqrt2) > 2.3e-16 {
		t.Errorf("pow(2, 0.5) = %v, more than 1 ULP from sqrt(2)", got)
	}
	if !math.IsNaN(powAccurate(-2, 0.5)) {
		t.Error("pow(-2, 0.5) is not NaN")
	}
}
