package stablehlo

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

func mustDense(t *testing.T, text string) *DenseAttr {
	t.Helper()
	a, err := ParseAttr(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	d, ok := a.(*DenseAttr)
	if !ok {
		t.Fatalf("%s: got %T", text, a)
	}
	return d
}

func TestDenseLists(t *testing.T) {
	d := mustDense(t, "dense<[[1.5, -2.0], [0x7FC00000, 3.25e+01]]> : tensor<2x2xf32>")
	if d.Splat || d.Value.Len() != 4 || d.Value.DType != dtype.F32 {
		t.Fatalf("got splat=%v %v", d.Splat, d.Value)
	}
	if d.Value.Float64(0) != 1.5 || d.Value.Float64(1) != -2 || !math.IsNaN(d.Value.Float64(2)) || d.Value.Float64(3) != 32.5 {
		t.Errorf("values %v %v %v %v", d.Value.Float64(0), d.Value.Float64(1), d.Value.Float64(2), d.Value.Float64(3))
	}
	if got := binary.LittleEndian.Uint32(d.Value.Data[8:]); got != 0x7FC00000 {
		t.Errorf("hex float bits %#x", got)
	}

	b := mustDense(t, "dense<[true, false, true]> : tensor<3xi1>")
	if b.Value.Int64(0) != 1 || b.Value.Int64(1) != 0 || b.Value.Int64(2) != 1 {
		t.Errorf("bools %v", b.Value.Data)
	}

	c := mustDense(t, "dense<[(1.0, 2.0), (3.0, -4.5)]> : tensor<2xcomplex<f64>>")
	if c.Value.Complex128(0) != complex(1, 2) || c.Value.Complex128(1) != complex(3, -4.5) {
		t.Errorf("complex %v %v", c.Value.Complex128(0), c.Value.Complex128(1))
	}

	u := mustDense(t, "dense<[18446744073709551615, 0]> : tensor<2xui64>")
	if u.Value.Uint64(0) != math.MaxUint64 {
		t.Errorf("ui64 max: %d", u.Value.Uint64(0))
	}
	i8 := mustDense(t, "dense<[255, -128, 0x7F]> : tensor<3xi8>")
	if i8.Value.Int64(0) != -1 || i8.Value.Int64(1) != -128 || i8.Value.Int64(2) != 127 {
		t.Errorf("i8 %v", i8.Value.Data)
	}
	i4 := mustDense(t, "dense<[-8, 7, 15]> : tensor<3xi4>")
	if i4.Value.Int64(0) != -8 || i4.Value.Int64(1) != 7 || i4.Value.Int64(2) != -1 {
		t.Errorf("i4 %v", i4.Value.Data)
	}
	e := mustDense(t, "dense<[]> : tensor<0x3xf32>")
	if e.Value.Len() != 0 {
		t.Errorf("empty: %v", e.Value)
	}
}

func TestDenseSplat(t *testing.T) {
	d := mustDense(t, "dense<1.0> : tensor<1000000000xf32>")
	if !d.Splat || d.Value.Len() != 1 || len(d.Value.Data) != 4 || d.Value.Float64(0) != 1 {
		t.Fatalf("splat: %v %v", d.Splat, d.Value)
	}
	if d.Type.NumElements() != 1000000000 {
		t.Errorf("type %s", d.Type)
	}
	one := mustDense(t, "dense<2> : tensor<1x1xi32>")
	if one.Splat || one.Value.Rank() != 2 || one.Value.Int64(0) != 2 {
		t.Errorf("one element: splat=%v %v", one.Splat, one.Value)
	}
	h := mustDense(t, `dense<"0x0000803F"> : tensor<3xf32>`)
	if !h.Splat || h.Value.Float64(0) != 1 {
		t.Errorf("hex splat: %v %v", h.Splat, h.Value)
	}
}

func TestDenseHex(t *testing.T) {
	f := mustDense(t, `dense<"0x000020410000A040"> : tensor<2xf32>`)
	if f.Value.Float64(0) != 10 || f.Value.Float64(1) != 5 {
		t.Errorf("f32 hex: %v %v", f.Value.Float64(0), f.Value.Float64(1))
	}
	packed := mustDense(t, `dense<"0x0D"> : tensor<4xi1>`) // bits 1011, LSB first
	want := []int64{1, 0, 1, 1}
	for i, w := range want {
		if packed.Value.Int64(i) != w {
			t.Errorf("packed i1[%d] = %d", i, packed.Value.Int64(i))
		}
	}
	bytewise := mustDense(t, `dense<"0x01000101"> : tensor<4xi1>`)
	for i, w := range want {
		if bytewise.Value.Int64(i) != w {
			t.Errorf("byte i1[%d] = %d", i, bytewise.Value.Int64(i))
		}
	}
	all := mustDense(t, `dense<"0xFF"> : tensor<10xi1>`)
	if !all.Splat || all.Value.Int64(0) != 1 {
		t.Errorf("i1 splat %v %v", all.Splat, all.Value.Data)
	}
	i4 := mustDense(t, `dense<"0x0F01"> : tensor<2xi4>`)
	if i4.Value.Int64(0) != -1 || i4.Value.Int64(1) != 1 {
		t.Errorf("i4 hex %v", i4.Value.Data)
	}
	c := mustDense(t, `dense<"0x0000803F00000040"> : tensor<complex<f32>>`)
	if c.Value.Complex128(0) != complex(1, 2) {
		t.Errorf("complex hex %v", c.Value.Complex128(0))
	}
}

// TestDenseNarrowFloats checks decimals that each narrow type represents
// exactly. How inexact decimals round (through float64, as MLIR does) is
// checked against mlir-opt in TestLiteralsAgreeWithMLIR.
func TestDenseNarrowFloats(t *testing.T) {
	cases := map[string][]float64{
		"dense<[65504.0, -0.0, 6.103515625e-05, 1.5]> : tensor<4xf16>": {65504, 0, 6.103515625e-05, 1.5},
		"dense<[3.0, -1.0e+00, 2.5e-1]> : tensor<3xbf16>":              {3, -1, 0.25},
		"dense<[448.0, -0.015625, 0.0]> : tensor<3xf8E4M3FN>":          {448, -0.015625, 0},
		"dense<[57344.0, 1.0]> : tensor<2xf8E5M2>":                     {57344, 1},
		"dense<[0.0, -0.0, 1.0, 0.5, -6.0]> : tensor<5xf4E2M1FN>":      {0, 0, 1, 0.5, -6},
		"dense<[7.5, 0.125]> : tensor<2xf6E2M3FN>":                     {7.5, 0.125},
		"dense<[28.0, 0.0625]> : tensor<2xf6E3M2FN>":                   {28, 0.0625},
		"dense<[1.0, 0.25, 4.0]> : tensor<3xf8E8M0FNU>":                {1, 0.25, 4},
		"dense<[240.0, -0.5]> : tensor<2xf8E4M3FNUZ>":                  {240, -0.5},
		"dense<[1.0000000000000002, 5.0e-324]> : tensor<2xf64>":        {1.0000000000000002, 5e-324},
		"dense<[3.4028234663852886e+38, 1.0e-45]> : tensor<2xf32>":     {3.4028234663852886e+38, 1.401298464324817e-45},
	}
	for text, want := range cases {
		d := mustDense(t, text)
		for i, w := range want {
			if got := d.Value.Float64(i); got != w {
				t.Errorf("%s [%d] = %v, want %v", text, i, got, w)
			}
		}
	}
	neg := mustDense(t, "dense<-0.0> : tensor<f16>")
	if got := binary.LittleEndian.Uint16(neg.Value.Data); got != 0x8000 {
		t.Errorf("-0.0 as f16: bits %#04x", got)
	}
}

func TestDenseErrors(t *testing.T) {
	bad := []string{
		"dense<[1, 2]> : tensor<3xi32>",
		"dense<[[1], [2, 3]]> : tensor<2x2xi32>",
		"dense<256> : tensor<i8>",
		"dense<-129> : tensor<i8>",
		"dense<-1> : tensor<ui8>",
		"dense<18446744073709551616> : tensor<ui64>",
		"dense<1.5> : tensor<i32>",
		"dense<(1.0, 2.0)> : tensor<f32>",
		"dense<1.0> : tensor<complex<f32>>",
		`dense<"0x0000"> : tensor<3xf32>`,
		`dense<"0xZZ"> : tensor<i8>`,
		"dense<0x1FFFF> : tensor<f16>",
		"dense<2> : tensor<i1>",
		"dense<1.0> : tensor<?xf32>",
		"dense<[1, 2]> : tensor<100000000000x100000000000xf32>",
	}
	for _, s := range bad {
		if _, err := ParseAttr(s); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
}

// TestDenseResource checks dense_resource blobs from the trailing
// dialect_resources section (4 bytes of alignment, then the data).
func TestDenseResource(t *testing.T) {
	src := `func.func @f() -> tensor<2xi32> {
  %c = stablehlo.constant dense_resource<blob1> : tensor<2xi32>
  return %c : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
`
	m, err := ParseModule("r.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := m.Funcs[0].Body.Entry().Ops[0].Attr("value").(*DenseAttr)
	if d.Value == nil || d.Value.Int64(0) != 1 || d.Value.Int64(1) != 2 {
		t.Errorf("resource value %v", d.Value)
	}
	missing := strings.Replace(src, "blob1:", "other:", 1)
	if _, err := ParseModule("r.mlir", []byte(missing)); err == nil || !strings.Contains(err.Error(), "unknown dense resource") {
		t.Errorf("missing blob: %v", err)
	}
}
