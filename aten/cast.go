package aten

import "github.com/torchtpu/torchtpu/dtype"

// Type conversions: _to_copy (the Core ATen cast), the to.* overloads of
// the default export, type_as, and the copies that are identities on
// values (detach, lift_fresh_copy). float → integer truncates toward zero,
// anything → bool is x != 0 (NaN → true).

func init() {
	cast := func(param string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if d, ok := a.OptDType(param); ok {
				if d.Size() == 0 || d == dtype.Index {
					return nil, c.Errorf("unsupported dtype %v", d)
				}
				return one(c.Convert(x, d)), nil
			}
			return one(x), nil
		}
	}
	lower("aten::_to_copy.default", cast("dtype"))
	lower("aten::to.dtype", cast("dtype"))
	lower("aten::to.dtype_layout", cast("dtype"))
	lower("aten::to.device", cast("dtype"))
	toOther := func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(c.Convert(a.Tensor("self"), c.DType(a.Tensor("other")))), nil
	}
	// prims.convert_element_type: what the Core ATen decompositions leave
	// for a Python scalar computed in float64 (GPT-2's math.sqrt(2/pi)).
	Register(Entry{Name: "prims::convert_element_type.default", Kind: Lowered,
		Schema: "convert_element_type(Tensor a, ScalarType dtype) -> Tensor",
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			d, ok := a.OptDType("dtype")
			if !ok || d.Size() == 0 || d == dtype.Index {
				return nil, c.Errorf("unsupported dtype %v", d)
			}
			return one(c.Convert(a.Tensor("a"), d)), nil
		}})
	lower("aten::to.other", toOther)
	lower("aten::type_as.default", toOther)
	identity := func(c *LowerCtx, a *Args) ([]Value, error) { return one(a.Tensor("self")), nil }
	for _, n := range []string{"detach", "lift_fresh_copy", "lift_fresh", "resolve_conj", "resolve_neg"} {
		if _, ok := SchemaFor("aten::" + n); ok {
			lower("aten::"+n+".default", identity)
		}
	}
	lower("aten::copy.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, src := a.Tensor("self"), a.Tensor("src")
		return one(c.BroadcastTo(c.Convert(src, c.DType(x)), c.Shape(x))), nil
	})
}
