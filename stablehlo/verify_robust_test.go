package stablehlo

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"runtime/debug"
	"testing"
)

// TestMalformedNeverPanics mutates corpus ops at random (attributes of the
// wrong kind or values, operands swapped for unrelated values, regions or
// results dropped) and requires type inference, Verify and Print to return
// errors, never panic.
func TestMalformedNeverPanics(t *testing.T) {
	files := corpusFiles(t)
	rng := rand.New(rand.NewSource(1))
	mutated, rejected := 0, 0
	for i, f := range files {
		if i%4 != 0 {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := Parse(f, src)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		for _, m := range mods {
			var ops []*Op
			var vals []*Value
			for _, fn := range m.Funcs {
				if fn.Body == nil {
					continue
				}
				vals = append(vals, fn.Body.Blocks[0].Args...)
				fn.Body.Walk(func(op *Op) error {
					ops = append(ops, op)
					vals = append(vals, op.Results...)
					return nil
				})
			}
			for _, op := range ops {
				for k := 0; k < 6; k++ {
					c := *op
					c.Attrs = append([]NamedAttr(nil), op.Attrs...)
					c.Operands = append([]*Value(nil), op.Operands...)
					c.Regions = append([]*Region(nil), op.Regions...)
					mutate(rng, &c, vals)
					mutated++
					if err := noPanic(func() error { _, err := InferResultTypes(&c); return err }); err != nil {
						if isPanic(err) {
							t.Fatalf("%s: inference on mutated %s panicked: %v", f, PrintOp(&c), err)
						}
						rejected++
					}
				}
			}
			// Corrupt the module itself, then verify and print it.
			for k := 0; k < 3 && len(ops) > 0; k++ {
				mutate(rng, ops[rng.Intn(len(ops))], vals)
			}
			if err := noPanic(func() error { return Verify(m) }); isPanic(err) {
				t.Fatalf("%s: Verify panicked: %v", f, err)
			}
			if err := noPanic(func() error { return Print(&bytes.Buffer{}, m) }); isPanic(err) {
				t.Fatalf("%s: Print panicked: %v", f, err)
			}
		}
	}
	t.Logf("%d mutated ops, %d rejected by inference", mutated, rejected)
	if rejected == 0 {
		t.Errorf("no mutation was rejected: the mutations are not reaching the rules")
	}
}

type panicErr struct{ msg string }

func (p panicErr) Error() string { return p.msg }

func isPanic(err error) bool { _, ok := err.(panicErr); return ok }

func noPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicErr{fmt.Sprintf("%v\n%s", r, debug.Stack())}
		}
	}()
	return fn()
}

// mutate applies one random corruption to op.
func mutate(rng *rand.Rand, op *Op, vals []*Value) {
	randInts := func() []int64 {
		n := rng.Intn(6)
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(rng.Intn(12) - 3)
		}
		return out
	}
	switch k := rng.Intn(9); {
	case k < 4 && len(op.Attrs) > 0:
		j := rng.Intn(len(op.Attrs))
		var v Attr
		switch rng.Intn(7) {
		case 0:
			v = I64s(randInts()...)
		case 1:
			v = &IntAttr{Value: int64(rng.Intn(20) - 5)}
		case 2:
			v = StringAttr("x")
		case 3:
			v = &DotDims{LhsContractingDims: randInts(), RhsContractingDims: randInts(), LhsBatchingDims: randInts()}
		case 4:
			v = &GatherDims{OffsetDims: randInts(), CollapsedSliceDims: randInts(), StartIndexMap: randInts(), IndexVectorDim: int64(rng.Intn(5) - 1)}
		case 5:
			v = &ConvDims{InputSpatialDims: randInts(), KernelSpatialDims: randInts(), OutputSpatialDims: randInts(),
				InputFeatureDim: int64(rng.Intn(5)), OutputFeatureDim: int64(rng.Intn(5) - 1)}
		default:
			v = &ScatterDims{UpdateWindowDims: randInts(), InsertedWindowDims: randInts(), ScatterDimsToOperandDims: randInts(), IndexVectorDim: int64(rng.Intn(5))}
		}
		op.Attrs[j].Value = v
	case k == 4 && len(op.Attrs) > 0:
		j := rng.Intn(len(op.Attrs))
		op.Attrs = append(op.Attrs[:j:j], op.Attrs[j+1:]...)
	case k == 5 && len(op.Operands) > 0 && len(vals) > 0:
		op.Operands[rng.Intn(len(op.Operands))] = vals[rng.Intn(len(vals))]
	case k == 6 && len(op.Operands) > 0:
		op.Operands = op.Operands[:rng.Intn(len(op.Operands))]
	case k == 7 && len(op.Regions) > 0:
		if rng.Intn(2) == 0 {
			op.Regions = op.Regions[:len(op.Regions)-1]
		} else {
			op.Regions[0] = &Region{Blocks: []*Block{{}}}
		}
	default:
		if len(op.Results) > 0 {
			op.Results = op.Results[:len(op.Results)-1]
		}
	}
}
