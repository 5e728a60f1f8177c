package legalize

import (
	"context"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Exercise runs m through the pipeline the way the PJRT backend does for
// target, without a device: a static module once; a polymorphic one
// specialised at size n (every ? dim, every shape argument), and checked
// for padding from n to 2n (Pad on its refinements at 2n and 4n). Every
// module the pipeline produces must verify. The fuzz target and the
// mutation harness (tools/mutate) call it: bad input must give an error,
// never a panic. m is not modified.
func Exercise(ctx context.Context, m *stablehlo.Module, target *Target, n int64) error {
	if n < 1 || n > 64 {
		n = 3
	}
	if m == nil || m.Func("main") == nil {
		return fmt.Errorf("legalize: no @main")
	}
	check := func(what string, c *stablehlo.Module) error {
		if err := stablehlo.Verify(c); err != nil {
			return fmt.Errorf("legalize %s: the result does not verify: %w", what, err)
		}
		var sb strings.Builder
		return stablehlo.Print(&sb, c)
	}
	c, err := Clone(m)
	if err != nil {
		return err
	}
	if !IsDynamic(c) {
		if err := Run(&State{Ctx: ctx, Module: c, Target: target}, Options{}); err != nil {
			return err
		}
		return check("static", c)
	}
	if err := Run(&State{Ctx: ctx, Module: c, Target: target}, Options{Only: []string{"inline"}}); err != nil {
		return err
	}
	shapeArgs, err := ShapeArgs(c)
	if err != nil {
		return err
	}
	at := func(size int64) ([]Arg, error) {
		main := c.Func("main")
		isShape := map[int]bool{}
		for _, i := range shapeArgs {
			isShape[i] = true
		}
		args := make([]Arg, len(main.Type.Inputs))
		for i, t := range main.Type.Inputs {
			tt := stablehlo.AsTensor(t)
			if tt == nil {
				return nil, fmt.Errorf("argument %d of type %v", i, t)
			}
			shape := append([]int64{}, tt.Shape...)
			for d, s := range shape {
				if s == stablehlo.Dynamic {
					shape[d] = size
				}
			}
			args[i].Type = &stablehlo.TensorType{Shape: shape, Elem: stablehlo.Elem(tt.DType())}
			if isShape[i] {
				l, err := literal.New(tt.DType(), shape)
				if err != nil {
					return nil, err
				}
				for j := 0; j < l.Len(); j++ {
					l.SetInt64(j, size)
				}
				args[i].Value = l
			}
		}
		return args, nil
	}
	refined := func(size int64, only []string) (*stablehlo.Module, error) {
		r, err := Clone(c)
		if err != nil {
			return nil, err
		}
		args, err := at(size)
		if err != nil {
			return nil, err
		}
		return r, Run(&State{Ctx: ctx, Module: r, Target: target, Args: args}, Options{Only: only})
	}
	full, err := refined(n, nil)
	if err != nil {
		return err
	}
	if err := check("refined", full); err != nil {
		return err
	}
	mB, err1 := refined(2*n, []string{"refine", "dce"})
	m2B, err2 := refined(4*n, []string{"refine", "dce"})
	if err1 != nil || err2 != nil {
		return nil // no padding at these sizes: the call runs exact
	}
	if _, err := Pad(mB, m2B, 2*n); err != nil {
		return nil // refused: exact shapes
	}
	return check("padded", mB)
}
