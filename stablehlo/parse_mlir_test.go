package stablehlo

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/dtype"
)

// parserMLIROpt finds LLVM's mlir-opt ($TORCHTPU_MLIR_OPT, PATH, or a
// Debian llvm-N install); "" when there is none.
func parserMLIROpt() string {
	if p := os.Getenv("TORCHTPU_MLIR_OPT"); p != "" {
		return p
	}
	if p, err := exec.LookPath("mlir-opt"); err == nil {
		return p
	}
	m, _ := filepath.Glob("/usr/lib/llvm-*/bin/mlir-opt")
	if len(m) > 0 {
		return m[len(m)-1]
	}
	return ""
}

// literalCases generates decimal and hex literals for each element type:
// random values across the type's range, exact midpoints between
// neighbouring values and decimals just off them, overflow and underflow.
func literalCases() map[string][]string {
	r := rand.New(rand.NewSource(7))
	out := map[string][]string{}
	floats := []dtype.DType{dtype.F16, dtype.BF16, dtype.F32, dtype.F64, dtype.F8E4M3FN, dtype.F8E5M2,
		dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ, dtype.F8E4M3B11FNUZ, dtype.F8E3M4, dtype.F8E4M3,
		dtype.F8E8M0FNU, dtype.F6E2M3FN, dtype.F6E3M2FN, dtype.F4E2M1FN}
	for _, d := range floats {
		var vs []string
		for i := 0; i < 60; i++ {
			digits := strconv.FormatInt(1e17+r.Int63n(9e17), 10)[:1+r.Intn(17)]
			v := digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(r.Intn(90)-45)
			if r.Intn(2) == 0 {
				v = "-" + v
			}
			vs = append(vs, v)
		}
		if d != dtype.F32 && d != dtype.F64 {
			// Midpoints between neighbours, and decimals just above and below.
			for b := uint64(0); b < 1<<uint(d.Bits()) && len(vs) < 400; b += 1 + uint64(r.Intn(3)) {
				x, y := decodeNarrow(d, b), decodeNarrow(d, b+1)
				if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || math.Signbit(x) != math.Signbit(y) {
					continue
				}
				m := x/2 + y/2
				mant, exp, _ := strings.Cut(strconv.FormatFloat(m, 'e', -1, 64), "e")
				if !strings.Contains(mant, ".") {
					mant += ".0"
				}
				vs = append(vs, mant+"e"+exp, mant+"000000000000000000001e"+exp)
			}
		}
		vs = append(vs, "0.0", "-0.0", "1.0e300", "-1.0e300", "1.0e-300", "65504.0", "65520.0", "448.0", "464.0", "57344.0", "61440.0")
		if d == dtype.F8E8M0FNU {
			// E8M0 has neither zero nor sign: dtype makes 0 and negatives NaN,
			// MLIR's APFloat gives 2^-127 for 0 and sets a stray top bit for
			// negatives. Only positive values are meaningful.
			vs = positiveOnly(vs)
		}
		out[d.MLIR()] = vs
	}
	for _, d := range []dtype.DType{dtype.I2, dtype.I4, dtype.I8, dtype.I16, dtype.I32, dtype.I64, dtype.U2, dtype.U4, dtype.U8, dtype.U16, dtype.U32, dtype.U64} {
		lo, hi := intRange(d)
		vs := []string{strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10), "0", "1"}
		if d.IsUnsigned() && d.Bits() == 64 {
			vs = append(vs, "18446744073709551615", "0xFFFFFFFFFFFFFFFF")
		}
		if d.IsSigned() && d.Bits() < 64 {
			vs = append(vs, strconv.FormatInt(int64(1)<<uint(d.Bits())-1, 10)) // signless: unsigned range too
		}
		out[d.MLIR()] = vs
	}
	out["i1"] = []string{"true", "false", "true", "true", "false", "false", "false", "true", "true", "false", "true"}
	out["complex<f32>"] = []string{"(1.5, -2.0)", "(0.1, 1.0e-40)", "(3.4028235e38, -0.0)"}
	out["complex<f64>"] = []string{"(1.5, -2.0)", "(0.1, 1.0e-310)"}
	return out
}

// TestLiteralsAgreeWithMLIR parses each literal with our parser and with
// MLIR's (mlir-opt prints every dense attribute back as raw hex): the bytes
// must agree, so a constant means the same on the native backend and on a
// PJRT device. Also checks our reading of MLIR's hex layout (i1 packing,
// sub-byte types, complex).
func TestLiteralsAgreeWithMLIR(t *testing.T) {
	opt := parserMLIROpt()
	if opt == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("mlir-opt not installed: .ci/run installs mlir-22-tools")
		}
		t.Skip("mlir-opt not installed (apt-get install mlir-22-tools, or set TORCHTPU_MLIR_OPT)")
	}
	cases := literalCases()
	var keys []string
	var src bytes.Buffer
	src.WriteString("func.func @f() {\n")
	for ty, vs := range cases {
		for i, v := range vs {
			keys = append(keys, fmt.Sprintf("%s[%d] = %s", ty, i, v))
			fmt.Fprintf(&src, "  \"x.c\"() {v = dense<%s> : tensor<%s>, l = dense<[%s, %s]> : tensor<2x%s>} : () -> ()\n", v, ty, v, v, ty)
		}
	}
	src.WriteString("  return\n}\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, opt, "--allow-unregistered-dialect", "--mlir-print-elementsattrs-with-hex-if-larger=0", "-")
	cmd.Stdin = bytes.NewReader(src.Bytes())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outText, err := cmd.Output()
	if err != nil {
		t.Fatalf("mlir-opt: %v\n%s", err, stderr.String())
	}
	ours, err := ParseModule("ours.mlir", src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := ParseModule("mlir.mlir", outText)
	if err != nil {
		t.Fatal(err)
	}
	a, b := ours.Funcs[0].Body.Entry().Ops, theirs.Funcs[0].Body.Entry().Ops
	if len(a) != len(b) {
		t.Fatalf("%d ops vs %d from mlir-opt", len(a), len(b))
	}
	bad := 0
	for i := range keys {
		for _, name := range []string{"v", "l"} {
			x, y := a[i].Attr(name).(*DenseAttr), b[i].Attr(name).(*DenseAttr)
			if ex, ey := expandDense(x), expandDense(y); !bytes.Equal(ex, ey) {
				bad++
				if bad <= 20 {
					t.Errorf("%s (%s): ours %x, MLIR %x", keys[i], name, ex, ey)
				}
			}
		}
	}
	t.Logf("%d literals compared with %s, %d differ", len(keys), opt, bad)
}

// expandDense returns the bytes of every element (MLIR stores lists of
// equal elements as splats).
func expandDense(d *DenseAttr) []byte {
	if !d.Splat {
		return d.Value.Data
	}
	return bytes.Repeat(d.Value.Data, int(d.Type.NumElements()))
}

func positiveOnly(vs []string) []string {
	var out []string
	for _, v := range vs {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
			out = append(out, v)
		}
	}
	return out
}
