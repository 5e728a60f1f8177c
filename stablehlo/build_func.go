package stablehlo

import "fmt"

// Function metadata: visibility and argument / result attributes.

// SetVisibility sets the function's visibility ("public", "private").
func (fb *FuncBuilder) SetVisibility(v string) {
	if fb.fn != nil {
		fb.fn.Visibility = v
	}
}

// SetArgAttr sets an attribute of function argument i.
func (fb *FuncBuilder) SetArgAttr(i int, name string, v Attr) {
	if fb.fn == nil || i < 0 || i >= len(fb.fn.Type.Inputs) {
		fb.b.fail(fmt.Errorf("stablehlo: SetArgAttr: no function argument %d", i))
		return
	}
	for len(fb.fn.ArgAttrs) < len(fb.fn.Type.Inputs) {
		fb.fn.ArgAttrs = append(fb.fn.ArgAttrs, nil)
	}
	fb.fn.ArgAttrs[i] = setDict(fb.fn.ArgAttrs[i], name, v)
}

// SetResultAttr sets an attribute of function result i (call after Return).
func (fb *FuncBuilder) SetResultAttr(i int, name string, v Attr) {
	if fb.fn == nil || i < 0 || i >= len(fb.fn.Type.Results) {
		fb.b.fail(fmt.Errorf("stablehlo: SetResultAttr: no function result %d", i))
		return
	}
	for len(fb.fn.ResultAttrs) < len(fb.fn.Type.Results) {
		fb.fn.ResultAttrs = append(fb.fn.ResultAttrs, nil)
	}
	fb.fn.ResultAttrs[i] = setDict(fb.fn.ResultAttrs[i], name, v)
}

func setDict(d DictAttr, name string, v Attr) DictAttr {
	for i := range d {
		if d[i].Name == name {
			d[i].Value = v
			return d
		}
	}
	d = append(d, NamedAttr{name, v})
	SortAttrs(d)
	return d
}

// NewOpsBuilder returns a builder that emits into a scratch block of its
// own, for a pass that replaces an op with a sequence: emit the sequence,
// then splice Ops() in the op's place. It belongs to a module builder of
// its own (calls it emits name functions the pass must provide).
func NewOpsBuilder(loc Loc) *FuncBuilder {
	return &FuncBuilder{b: NewBuilder(""), block: &Block{}, loc: loc}
}

// Ops returns the ops emitted so far into the builder's block and empties
// it.
func (fb *FuncBuilder) Ops() []*Op {
	ops := fb.block.Ops
	fb.block.Ops = nil
	return ops
}

// Append adds ops built elsewhere (a pass's copies of a region's ops) to
// the builder's block, in order.
func (fb *FuncBuilder) Append(ops ...*Op) {
	fb.block.Ops = append(fb.block.Ops, ops...)
}
