package stablehlo

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
)

// TestRoundTripCorpus parses every corpus module, verifies it, prints it,
// parses the text again and prints that: the two texts must be identical
// and the reparsed module structurally equal to the original.
func TestRoundTripCorpus(t *testing.T) {
	files := corpusFiles(t)
	var modules, verified, printed int
	var verifyFails []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := Parse(f, src)
		if err != nil {
			t.Errorf("parse: %v", err)
			continue
		}
		for i, m := range mods {
			modules++
			name := fmt.Sprintf("%s#%d", f, i)
			if err := Verify(m); err != nil {
				verifyFails = append(verifyFails, fmt.Sprintf("%s: %v", name, err))
			} else {
				verified++
			}
			if err := roundTrip(m); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			printed++
		}
	}
	t.Logf("%d modules: %d verify, %d round-trip", modules, verified, printed)
	for i, s := range verifyFails {
		if i == 20 {
			t.Errorf("... and %d more verify failures", len(verifyFails)-20)
			break
		}
		t.Errorf("verify: %s", s)
	}
}

func roundTrip(m *Module) error {
	var b1 bytes.Buffer
	if err := Print(&b1, m); err != nil {
		return err
	}
	m2, err := ParseModule("printed", b1.Bytes())
	if err != nil {
		return fmt.Errorf("printed text does not parse: %w\n%s", err, excerpt(b1.String(), err))
	}
	var b2 bytes.Buffer
	if err := Print(&b2, m2); err != nil {
		return fmt.Errorf("reprint: %w", err)
	}
	if b1.String() != b2.String() {
		return fmt.Errorf("print is not a fixed point:\n%s", firstDiff(b1.String(), b2.String()))
	}
	if err := equalModules(m, m2); err != nil {
		return fmt.Errorf("reparsed module differs: %w", err)
	}
	return nil
}

func excerpt(text string, err error) string {
	if len(text) > 2000 {
		return text[:2000] + "..."
	}
	return text
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths differ: %d vs %d lines", len(la), len(lb))
}

// --- structural equality (independent of the printer) ---

type eqState struct{ vals map[*Value]*Value }

func equalModules(a, b *Module) error {
	if a.Name != b.Name {
		return fmt.Errorf("module name %q vs %q", a.Name, b.Name)
	}
	if err := equalDict(a.Attrs, b.Attrs); err != nil {
		return fmt.Errorf("module attributes: %w", err)
	}
	if len(a.Funcs) != len(b.Funcs) {
		return fmt.Errorf("%d vs %d functions", len(a.Funcs), len(b.Funcs))
	}
	for i := range a.Funcs {
		if err := equalFuncs(a.Funcs[i], b.Funcs[i]); err != nil {
			return fmt.Errorf("func @%s: %w", a.Funcs[i].Name, err)
		}
	}
	return nil
}

func equalFuncs(a, b *Func) error {
	if a.Name != b.Name || normVis(a.Visibility) != normVis(b.Visibility) || a.Type.String() != b.Type.String() {
		return fmt.Errorf("header %s %s%v vs %s %s%v", a.Visibility, a.Name, a.Type, b.Visibility, b.Name, b.Type)
	}
	for i := range a.Type.Inputs {
		if err := equalDict(dictAt(a.ArgAttrs, i), dictAt(b.ArgAttrs, i)); err != nil {
			return fmt.Errorf("argument %d attributes: %w", i, err)
		}
	}
	for i := range a.Type.Results {
		if err := equalDict(dictAt(a.ResultAttrs, i), dictAt(b.ResultAttrs, i)); err != nil {
			return fmt.Errorf("result %d attributes: %w", i, err)
		}
	}
	if err := equalDict(a.Attrs, b.Attrs); err != nil {
		return fmt.Errorf("attributes: %w", err)
	}
	if (a.Body == nil) != (b.Body == nil) {
		return fmt.Errorf("one is a declaration")
	}
	if a.Body == nil {
		return nil
	}
	s := &eqState{vals: map[*Value]*Value{}}
	return s.region(a.Body, b.Body)
}

func normVis(v string) string {
	if v == "public" {
		return ""
	}
	return v
}

func dictAt(ds []DictAttr, i int) DictAttr {
	if i < len(ds) {
		return ds[i]
	}
	return nil
}

func (s *eqState) region(a, b *Region) error {
	if len(a.Blocks) != len(b.Blocks) {
		return fmt.Errorf("%d vs %d blocks", len(a.Blocks), len(b.Blocks))
	}
	for i := range a.Blocks {
		ba, bb := a.Blocks[i], b.Blocks[i]
		if len(ba.Args) != len(bb.Args) || len(ba.Ops) != len(bb.Ops) {
			return fmt.Errorf("block %d: %d/%d args, %d/%d ops", i, len(ba.Args), len(bb.Args), len(ba.Ops), len(bb.Ops))
		}
		for j := range ba.Args {
			if ba.Args[j].Type.String() != bb.Args[j].Type.String() {
				return fmt.Errorf("block %d argument %d: %v vs %v", i, j, ba.Args[j].Type, bb.Args[j].Type)
			}
			s.vals[ba.Args[j]] = bb.Args[j]
		}
		for j := range ba.Ops {
			if err := s.op(ba.Ops[j], bb.Ops[j]); err != nil {
				return fmt.Errorf("op %d (%s): %w", j, ba.Ops[j].Name, err)
			}
		}
	}
	return nil
}

func (s *eqState) op(a, b *Op) error {
	if a.Name != b.Name || len(a.Operands) != len(b.Operands) || len(a.Results) != len(b.Results) || len(a.Regions) != len(b.Regions) {
		return fmt.Errorf("shape differs: %s vs %s", a.Name, b.Name)
	}
	for i := range a.Operands {
		if s.vals[a.Operands[i]] != b.Operands[i] {
			return fmt.Errorf("operand %d refers to a different value", i)
		}
	}
	if err := equalDict(a.Attrs, b.Attrs); err != nil {
		return err
	}
	for i := range a.Regions {
		if err := s.region(a.Regions[i], b.Regions[i]); err != nil {
			return fmt.Errorf("region %d: %w", i, err)
		}
	}
	for i := range a.Results {
		if a.Results[i].Type.String() != b.Results[i].Type.String() {
			return fmt.Errorf("result %d: %v vs %v", i, a.Results[i].Type, b.Results[i].Type)
		}
		s.vals[a.Results[i]] = b.Results[i]
	}
	return nil
}

func equalDict(a, b []NamedAttr) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d vs %d attributes", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return fmt.Errorf("attribute %q vs %q", a[i].Name, b[i].Name)
		}
		if !equalAttr(a[i].Value, b[i].Value) {
			return fmt.Errorf("attribute %s: %#v vs %#v", a[i].Name, a[i].Value, b[i].Value)
		}
	}
	return nil
}

func sameFloat(x, y float64) bool {
	return x == y && math.Signbit(x) == math.Signbit(y) || math.IsNaN(x) && math.IsNaN(y)
}

func equalAttr(a, b Attr) bool {
	switch x := a.(type) {
	case *FloatAttr:
		y, ok := b.(*FloatAttr)
		return ok && sameFloat(x.Value, y.Value) && reflect.DeepEqual(x.Type, y.Type)
	case *DenseArrayAttr:
		y, ok := b.(*DenseArrayAttr)
		if !ok || x.Elem != y.Elem || len(x.Floats) != len(y.Floats) || !reflect.DeepEqual(x.Ints, y.Ints) {
			return false
		}
		for i := range x.Floats {
			if !sameFloat(x.Floats[i], y.Floats[i]) {
				return false
			}
		}
		return true
	case *DenseAttr:
		y, ok := b.(*DenseAttr)
		return ok && x.Type.String() == y.Type.String() && bytes.Equal(expand(x), expand(y))
	case ArrayAttr:
		y, ok := b.(ArrayAttr)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalAttr(x[i], y[i]) {
				return false
			}
		}
		return true
	case DictAttr:
		y, ok := b.(DictAttr)
		return ok && equalDict(x, y) == nil
	case *StructAttr:
		y, ok := b.(*StructAttr)
		return ok && x.Name == y.Name && equalDict(x.Fields, y.Fields) == nil
	}
	return reflect.DeepEqual(a, b)
}

// expand returns the bytes of every element of a dense attribute.
func expand(d *DenseAttr) []byte {
	n, err := literal.NumElements(d.Type.Shape)
	if err != nil || d.Value == nil {
		return nil
	}
	if !d.Splat {
		return d.Value.Data
	}
	return bytes.Repeat(d.Value.Data, int(n))
}
