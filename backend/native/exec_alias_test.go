package native

import (
	"slices"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Results sharing bytes with an operand or with each other are marked,
// fresh ones are not, and an op with regions makes every value suspect.
func TestAliasesMarkSharedResults(t *testing.T) {
	buf := make([]byte, 64)
	x := &literal.Literal{Shape: []int64{16}, Data: buf}
	view := &literal.Literal{Shape: []int64{4}, Data: buf[16:32]}
	fresh := &literal.Literal{Shape: []int64{4}, Data: make([]byte, 16)}
	fr := &frame{slots: []Value{x, view, fresh, Tuple{fresh, fresh}}}
	a := newAliases(len(fr.slots))
	op := &stablehlo.Op{Name: "stablehlo.reshape"}
	a.defined(fr, &opPlan{op: op, in: []int{0}, out: []int{2}})
	if a.maybeShared(0) || a.maybeShared(2) {
		t.Fatal("a fresh result marked shared")
	}
	a.defined(fr, &opPlan{op: op, in: []int{0}, out: []int{1}})
	if !a.maybeShared(0) || !a.maybeShared(1) {
		t.Fatal("a view and its operand not marked")
	}
	a.defined(fr, &opPlan{op: op, in: nil, out: []int{3}})
	if !a.maybeShared(3) {
		t.Fatal("a tuple holding one buffer twice not marked")
	}
	// the marked slots, each once: what sharedElsewhere scans
	a.defined(fr, &opPlan{op: op, in: []int{0}, out: []int{1}})
	if !slices.Equal(a.list, []int{1, 0, 3}) {
		t.Fatalf("marked slots %v, want [1 0 3]", a.list)
	}
	a.defined(fr, &opPlan{op: &stablehlo.Op{Name: "stablehlo.while", Regions: []*stablehlo.Region{{}}}, in: []int{2}, out: []int{2}})
	if !a.maybeShared(2) || !a.all {
		t.Fatal("an op with regions did not make every value suspect")
	}
}
