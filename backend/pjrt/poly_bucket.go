package pjrt

import (
	"context"
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Bucketed runs of a polymorphic program (legalize/pad.go says which
// programs allow them): a call whose ? dims are all n runs at the bucket
// B of n, with its inputs zero-padded to B along those dims, its shape
// arguments equal to n set to B, and n as one more argument (the masks'
// bound); its results are sliced to the shapes the program has at n.

// runBucketed runs the call bucketed; ok is false when it does not apply
// (no bucket policy gain, or the program refuses padding: the call then
// runs at its exact shapes).
func (p *polyExecutable) runBucketed(ctx context.Context, args []*literal.Literal) (outs []*literal.Literal, ok bool, err error) {
	n, B, ok := p.bucketOf(args)
	if !ok {
		return nil, false, nil
	}
	key := fmt.Sprintf("bucket %d:", B)
	if sig, err := p.signatureWith(args, n, B); err == nil {
		key += sig
	} else {
		return nil, false, nil
	}
	ent := p.lookup(key)
	if ent == nil {
		ent = p.store(p.planBucket(ctx, key, args, n, B))
	}
	if ent.refused != nil {
		return nil, false, nil
	}
	padded := make([]*literal.Literal, 0, len(args)+1)
	for i, a := range args {
		pa, err := p.padArg(i, a, n, B)
		if err != nil {
			return nil, true, err
		}
		padded = append(padded, pa)
	}
	nl, _ := literal.New(dtype.I64, nil)
	nl.SetInt64(0, n)
	padded = append(padded, nl)
	res, err := ent.exe.Run(ctx, padded)
	if err != nil {
		return nil, true, err
	}
	shapes, err := p.exactShapes(ctx, args)
	if err != nil {
		return nil, true, err
	}
	if len(shapes) != len(res) {
		return nil, true, fmt.Errorf("pjrt %s: bucketed run gave %d results, the program has %d", p.name, len(res), len(shapes))
	}
	for i := range res {
		if res[i], err = literal.Resize(res[i], shapes[i]); err != nil {
			return nil, true, fmt.Errorf("pjrt %s: result %d: %w", p.name, i, err)
		}
	}
	return res, true, nil
}

// bucketOf returns the call's size n of its ? dims and its bucket B;
// ok is false when the ? dims differ, when there is none, or when B is n.
func (p *polyExecutable) bucketOf(args []*literal.Literal) (n, B int64, ok bool) {
	bucket := p.bucket
	if bucket == nil {
		bucket = legalize.Bucket
	}
	n = -1
	for i, t := range p.argTypes {
		tt := stablehlo.AsTensor(t)
		if tt == nil || i >= len(args) || args[i] == nil || len(args[i].Shape) != tt.Rank() {
			return 0, 0, false
		}
		for d, s := range tt.Shape {
			if s != stablehlo.Dynamic {
				continue
			}
			if n >= 0 && args[i].Shape[d] != n {
				return 0, 0, false // two sizes: exact shapes
			}
			n = args[i].Shape[d]
		}
	}
	if n < 1 {
		return 0, 0, false
	}
	B = bucket(n)
	return n, B, B > n
}

// signatureWith is the cache key of the bucketed call: the padded types,
// and the shape arguments' values with n read as B (others must be
// equal: a shape argument other than n keeps the call exact).
func (p *polyExecutable) signatureWith(args []*literal.Literal, n, B int64) (string, error) {
	padded := make([]*literal.Literal, len(args))
	for i, a := range args {
		pa, err := p.padArgShape(i, a, n, B)
		if err != nil {
			return "", err
		}
		padded[i] = pa
	}
	return p.signature(padded)
}

// padArgShape is arg i with its type at B (data not copied; shape
// arguments equal to n become B).
func (p *polyExecutable) padArgShape(i int, a *literal.Literal, n, B int64) (*literal.Literal, error) {
	tt := stablehlo.AsTensor(p.argTypes[i])
	shape := slices.Clone(a.Shape)
	for d, s := range tt.Shape {
		if s == stablehlo.Dynamic {
			shape[d] = B
		}
	}
	if slices.Contains(p.shapeArgs, i) {
		if a.Len() != 1 || a.Int64(0) != n {
			return nil, fmt.Errorf("shape argument %d is not the size", i)
		}
		l, _ := literal.New(a.DType, a.Shape)
		l.SetInt64(0, B)
		return l, nil
	}
	return &literal.Literal{DType: a.DType, Shape: shape}, nil
}

// padArg is arg i padded to B with zeros (a shape argument becomes B).
func (p *polyExecutable) padArg(i int, a *literal.Literal, n, B int64) (*literal.Literal, error) {
	t, err := p.padArgShape(i, a, n, B)
	if err != nil {
		return nil, err
	}
	if t.Data != nil {
		return t, nil
	}
	return literal.Resize(a, t.Shape)
}

// planBucket refines the program at B and at 2B, checks that it runs
// padded (legalize.Pad), inserts its masks and compiles it.
func (p *polyExecutable) planBucket(ctx context.Context, key string, args []*literal.Literal, n, B int64) *polyEntry {
	ent := &polyEntry{key: key, bucketed: true}
	refine := func(size int64) (*stablehlo.Module, error) {
		m, err := p.parse()
		if err != nil {
			return nil, err
		}
		at := make([]*literal.Literal, len(args))
		for i, a := range args {
			if at[i], err = p.padArgShape(i, a, n, size); err != nil {
				return nil, err
			}
		}
		s := &legalize.State{Ctx: ctx, Module: m, Args: p.argsFor(at)}
		if err := legalize.Run(s, legalize.Options{Only: []string{"refine", "dce"}}); err != nil {
			return nil, err
		}
		return m, nil
	}
	mB, err := refine(B)
	if err == nil {
		var m2 *stablehlo.Module
		if m2, err = refine(2 * B); err == nil {
			ent.outs, err = legalize.Pad(mB, m2, B)
		}
	}
	if err != nil {
		ent.refused = err
		return ent
	}
	ent.exe, ent.refused = p.compile(ctx, &legalize.State{Ctx: ctx, Module: mB})
	return ent
}

// exactShapes returns the result shapes of the program at the call's
// shapes (refinement only, cached by signature).
func (p *polyExecutable) exactShapes(ctx context.Context, args []*literal.Literal) ([][]int64, error) {
	key, err := p.signature(args)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if s, ok := p.outShapes[key]; ok {
		p.mu.Unlock()
		return s, nil
	}
	p.mu.Unlock()
	m, err := p.parse()
	if err != nil {
		return nil, err
	}
	s := &legalize.State{Ctx: ctx, Module: m, Args: p.argsFor(args)}
	if err := legalize.Run(s, legalize.Options{Only: []string{"refine"}}); err != nil {
		return nil, fmt.Errorf("pjrt %s: %w", p.name, err)
	}
	var shapes [][]int64
	for _, t := range m.Func("main").Type.Results {
		tt := stablehlo.AsTensor(t)
		if tt == nil {
			return nil, fmt.Errorf("pjrt %s: a result of type %v", p.name, t)
		}
		shapes = append(shapes, slices.Clone(tt.Shape))
	}
	p.mu.Lock()
	if len(p.outShapes) > 4*maxSpecializations {
		p.outShapes = map[string][][]int64{}
	}
	p.outShapes[key] = shapes
	p.mu.Unlock()
	return shapes, nil
}
