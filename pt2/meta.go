package pt2

import (
	"encoding/json"
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/sym"
)

// dim decodes a SymInt (as_int or as_expr) into a Dim.
func dim(raw json.RawMessage) (fx.Dim, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.Dim{}, err
	}
	switch tag {
	case "as_int":
		var n int64
		if err := unmarshal(v, &n); err != nil {
			return fx.Dim{}, err
		}
		return fx.StaticDim(n), nil
	case "as_expr":
		var e jSymExpr
		if err := unmarshal(v, &e); err != nil {
			return fx.Dim{}, err
		}
		x, err := sym.Parse(e.ExprStr)
		if err != nil {
			return fx.Dim{}, err
		}
		dm := fx.Dim{Expr: x}
		if c, ok := x.IsConst(); ok {
			return fx.StaticDim(c), nil
		}
		if len(e.Hint) > 0 && string(e.Hint) != "null" {
			var h int64
			if _, err := symArg(e.Hint, "as_int", &h); err == nil {
				dm.Hint, dm.HasHint = h, true
			}
		}
		return dm, nil
	}
	return fx.Dim{}, fmt.Errorf("unknown SymInt member %q", tag)
}

func tensorMeta(tm *jTensorMeta) (*fx.TensorMeta, error) {
	dt, err := scalarType(tm.DType)
	if err != nil {
		return nil, err
	}
	m := &fx.TensorMeta{DType: dt, RequiresGrad: tm.RequiresGrad, Device: convDevice(tm.Device), Layout: fx.Layout(tm.Layout)}
	static := make([]int64, 0, len(tm.Sizes))
	for i, raw := range tm.Sizes {
		dm, err := dim(raw)
		if err != nil {
			return nil, fmt.Errorf("sizes[%d]: %w", i, err)
		}
		if dm.IsStatic() {
			if dm.Static < 0 {
				return nil, fmt.Errorf("sizes[%d] is negative (%d)", i, dm.Static)
			}
			static = append(static, dm.Static)
		}
		m.Shape = append(m.Shape, dm)
	}
	if _, err := literal.NumElements(static); err != nil {
		return nil, err
	}
	for i, raw := range tm.Strides {
		dm, err := dim(raw)
		if err != nil {
			return nil, fmt.Errorf("strides[%d]: %w", i, err)
		}
		m.Strides = append(m.Strides, dm)
	}
	if len(tm.StorageOffset) > 0 && string(tm.StorageOffset) != "null" {
		if m.StorageOffset, err = dim(tm.StorageOffset); err != nil {
			return nil, fmt.Errorf("storage_offset: %w", err)
		}
	}
	return m, nil
}

// symValue decodes a SymInt / SymFloat / SymBool value entry.
func symValue(raw json.RawMessage, constTag string) (fx.SymValue, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.SymValue{}, err
	}
	var s fx.SymValue
	switch tag {
	case constTag:
		return s, constInto(&s, constTag, v)
	case "as_expr":
		var e jSymExpr
		if err := unmarshal(v, &e); err != nil {
			return s, err
		}
		if s.Expr, err = sym.Parse(e.ExprStr); err != nil {
			return s, err
		}
		if len(e.Hint) > 0 && string(e.Hint) != "null" {
			ht, hv, err := union(e.Hint)
			if err != nil {
				return s, fmt.Errorf("hint: %w", err)
			}
			if err := constInto(&s, ht, hv); err != nil {
				return s, fmt.Errorf("hint: %w", err)
			}
			s.HasHint = true
		}
		return s, nil
	}
	return s, fmt.Errorf("unknown member %q", tag)
}

func constInto(s *fx.SymValue, tag string, v json.RawMessage) error {
	switch tag {
	case "as_int":
		return unmarshal(v, &s.Int)
	case "as_float":
		var f jfloat
		err := unmarshal(v, &f)
		s.Float = float64(f)
		return err
	case "as_bool":
		return unmarshal(v, &s.Bool)
	}
	return fmt.Errorf("unknown member %q", tag)
}
