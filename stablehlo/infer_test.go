package stablehlo

import (
	"errors"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestInferMatchesCorpus runs type inference in builder mode (result types
// removed) on every op of the corpus whose types are static, and requires
// exactly the result types that XLA/JAX wrote. Ops whose result type is not
// inferable must say so (errResultTypeNeeded).
func TestInferMatchesCorpus(t *testing.T) {
	files := corpusFiles(t)
	checked, given := 0, 0
	noRule := map[string]int{}
	bad := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := Parse(f, src)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		for _, m := range mods {
			for _, fn := range m.Funcs {
				fn.Body.Walk(func(op *Op) error {
					if !HasInferRule(op.Name) {
						noRule[op.Name]++
						return nil
					}
					if !allStatic(op) {
						return nil
					}
					probe := *op
					if !resultElemGiven[op.Name] {
						probe.Results = nil
					}
					got, err := InferResultTypes(&probe)
					if errors.Is(err, errResultTypeNeeded) {
						given++
						return nil
					}
					checked++
					if err == nil {
						err = sameTypes(got, valueTypes(op.Results))
					}
					if err != nil {
						bad++
						if bad <= 20 {
							t.Errorf("%v: %s: %v", op.Loc, op.Name, err)
						}
					}
					return nil
				})
			}
		}
	}
	names := make([]string, 0, len(noRule))
	for n := range noRule {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("inferred %d op result lists exactly, %d ops declare theirs; no rule: %v", checked, given, names)
	if bad > 0 {
		t.Errorf("%d ops inferred differently from the corpus", bad)
	}
	if checked < 10000 {
		t.Errorf("only %d ops checked; the corpus has far more", checked)
	}
}

// Ops whose result element type may be wider than the operands' (i8 x i8
// -> i32): the builder takes it as an option, so the test keeps it.
var resultElemGiven = map[string]bool{"stablehlo.dot_general": true, "stablehlo.convolution": true, "stablehlo.dot": true}

func allStatic(op *Op) bool {
	for _, vs := range [][]*Value{op.Operands, op.Results} {
		for _, v := range vs {
			if tt := AsTensor(v.Type); tt != nil && (!tt.IsStatic() || tt.Elem.Quant != nil) {
				return false
			}
		}
	}
	return true
}

func sameTypes(got, want []Type) error {
	if len(got) != len(want) {
		return errors.New("result count differs: got " + typeList(got) + ", want " + typeList(want))
	}
	for i := range got {
		if got[i] == nil || want[i] == nil || got[i].String() != want[i].String() {
			return errors.New("got " + typeList(got) + ", want " + typeList(want))
		}
	}
	return nil
}

// TestInferCoversSpecOps checks that every op listed in the StableHLO
// reference (the spec's ops and the dialect-only ones) has a rule.
func TestInferCoversSpecOps(t *testing.T) {
	const ref = "../../shared/reference/stablehlo_ops.md"
	src, err := os.ReadFile(ref)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference missing: %v", err)
		}
		t.Skipf("reference missing: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(src), "\n") {
		m := specOpRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		if !HasInferRule("stablehlo." + m[1]) {
			t.Errorf("no inference rule for stablehlo.%s", m[1])
		}
	}
	if n < 110 {
		t.Errorf("found %d op rows in %s, want the 117 ops", n, ref)
	}
}

var specOpRow = regexp.MustCompile("^\\| `([a-z_]+)`")
