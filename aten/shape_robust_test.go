package aten

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestFamilyNoPanic lowers every entry of the view, index, linalg, nn and
// fallback families with many random (mostly invalid) argument
// combinations: a lowering may return an error, never panic.

func familyEntryNames(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"view*.go", "shape*.go", "index*.go", "nn_*.go", "linalg*.go", "fallback*.go"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	re := regexp.MustCompile(`"(aten::[A-Za-z0-9_.]+)"`)
	seen := map[string]bool{}
	var names []string
	for _, f := range files {
		if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				names = append(names, m[1])
			}
		}
	}
	sort.Strings(names)
	return names
}

var fuzzShapes = [][]int64{{}, {3}, {2, 3}, {1, 4, 4}, {2, 3, 4, 5}, {0, 2}, {2, 1, 3, 3, 2}}
var fuzzDTypes = []dtype.DType{dtype.F32, dtype.I64, dtype.Bool, dtype.BF16, dtype.I32}

func fuzzTensor(rng *rand.Rand, b *stablehlo.Block) Value {
	t := stablehlo.Tensor(fuzzDTypes[rng.Intn(len(fuzzDTypes))], fuzzShapes[rng.Intn(len(fuzzShapes))]...)
	v := &stablehlo.Value{Type: t, Index: len(b.Args)}
	b.Args = append(b.Args, v)
	return TensorValue(v)
}

func fuzzValue(rng *rand.Rand, b *stablehlo.Block, p Param) Value {
	if p.Type.Optional && rng.Intn(3) == 0 {
		return None()
	}
	ints := []int64{-2, -1, 0, 1, 2, 3, 7}
	switch {
	case p.Type.Base == "Tensor" && p.Type.List:
		n := rng.Intn(3)
		items := make([]Value, n)
		for i := range items {
			if p.Type.ElemOpt && rng.Intn(3) == 0 {
				items[i] = None()
			} else {
				items[i] = fuzzTensor(rng, b)
			}
		}
		return ListValue(items...)
	case p.Type.Base == "Tensor":
		return fuzzTensor(rng, b)
	case p.Type.List && (p.Type.Base == "int" || p.Type.Base == "SymInt"):
		n := rng.Intn(4)
		xs := make([]int64, n)
		for i := range xs {
			xs[i] = ints[rng.Intn(len(ints))]
		}
		return IntsValue(xs)
	case p.Type.List && p.Type.Base == "float":
		return ListValue(FloatValue(0.5), FloatValue(2))
	case p.Type.Base == "int" || p.Type.Base == "SymInt":
		return IntValue(ints[rng.Intn(len(ints))])
	case p.Type.Base == "float":
		return FloatValue([]float64{0, 0.5, -1, 2}[rng.Intn(4)])
	case p.Type.Base == "bool":
		return BoolValue(rng.Intn(2) == 0)
	case p.Type.Base == "Scalar":
		return []Value{IntValue(2), FloatValue(0.5), BoolValue(true)}[rng.Intn(3)]
	case p.Type.Base == "str":
		return StrValue([]string{"mean", "sum", "same", "valid", "constant", "reflect", "amax", "x"}[rng.Intn(8)])
	case p.Type.Base == "ScalarType":
		return DTypeValue(fuzzDTypes[rng.Intn(len(fuzzDTypes))])
	}
	if p.HasDefault {
		return p.Default
	}
	return None()
}

func TestFamilyNoPanic(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	names := familyEntryNames(t)
	if len(names) < 100 {
		t.Fatalf("found only %d entries", len(names))
	}
	for _, name := range names {
		e, ok := Lookup(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if e.Lower == nil {
			continue
		}
		for i := 0; i < fuzzIters; i++ {
			b := &stablehlo.Block{}
			s := e.ParsedSchema()
			pos := make([]Value, len(s.Params))
			for j, p := range s.Params {
				pos[j] = fuzzValue(rng, b, p)
			}
			args, err := Bind(s, pos, nil)
			if err != nil {
				continue
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s panicked with %v on %v", name, r, fmt.Sprint(pos))
					}
				}()
				_, _ = e.Call(NewLowerCtx(b), args)
			}()
		}
	}
}

// fuzzIters is the number of random calls per entry (FAMILY_FUZZ=N raises it).
var fuzzIters = func() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("FAMILY_FUZZ"), &n); err == nil && n > 0 {
		return n
	}
	return 60
}()
