package aten

import (
	"sort"

	"github.com/torchtpu/torchtpu/dtype"
)

// PyTorch's primitives (torch._prims, namespace prims): what the reference
// implementations (torch._refs) and some decompositions leave in a graph.
// AOTAutograd's _to_copy decomposition writes prims::convert_element_type
// and prims::device_put into every graph that casts under dynamic shapes
// (HF generate() with a compiled forward). Prims differ from aten in two
// ways that matter here: they never promote types (their operands already
// share a dtype, and reductions keep it unless output_dtype says
// otherwise), and prims::div truncates on integers. Results follow the
// prims' meta functions (what the graph records), which for integer sums
// and products differ from eager prims (int32 stays int32). signbit is
// left out: its meta says float, its kernel bool. Each row names the aten
// entry that computes the same values; the rest are written below.

// primsSame: prims whose aten namesake (".default" for one operand,
// ".Tensor" for two) takes the same parameters.
var primsSame = map[string]string{
	"abs": "abs", "acos": "acos", "acosh": "acosh", "asin": "asin", "asinh": "asinh", "atan": "atan",
	"atanh": "atanh", "cos": "cos", "cosh": "cosh", "sin": "sin", "sinh": "sinh", "tan": "tan", "tanh": "tanh",
	"exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log10": "log10", "log1p": "log1p",
	"log2": "log2", "sqrt": "sqrt", "rsqrt": "rsqrt", "reciprocal": "reciprocal", "neg": "neg", "sign": "sign",
	"ceil": "ceil", "floor": "floor", "round": "round", "trunc": "trunc", "erf": "erf",
	"erfc": "erfc", "lgamma": "lgamma", "digamma": "digamma", "bitwise_not": "bitwise_not",
	"isfinite": "isfinite", "conj_physical": "conj_physical", "erf_inv": "erfinv", "bessel_i0": "i0",
	"bessel_i0e": "special_i0e", "bessel_i1": "special_i1", "bessel_i1e": "special_i1e",
	"bessel_j0": "special_bessel_j0", "bessel_j1": "special_bessel_j1", "ndtri": "special_ndtri",
	"erfcx": "special_erfcx", "spherical_bessel_j0": "special_spherical_bessel_j0",
}

var primsBinary = map[string]string{
	"add": "add.Tensor", "sub": "sub.Tensor", "mul": "mul.Tensor", "atan2": "atan2.default",
	"bitwise_and": "bitwise_and.Tensor", "bitwise_or": "bitwise_or.Tensor", "bitwise_xor": "bitwise_xor.Tensor",
	"eq": "eq.Tensor", "ne": "ne.Tensor", "ge": "ge.Tensor", "gt": "gt.Tensor", "le": "le.Tensor",
	"lt": "lt.Tensor", "maximum": "maximum.default", "minimum": "minimum.default", "fmax": "fmax.default",
	"fmin": "fmin.default", "fmod": "fmod.Tensor", "remainder": "remainder.Tensor", "hypot": "hypot.default",
	"igamma": "igamma.default", "igammac": "igammac.default", "nextafter": "nextafter.default",
	"gcd": "gcd.default", "shift_left": "bitwise_left_shift.Tensor",
	"shift_right_arithmetic": "bitwise_right_shift.Tensor", "zeta": "special_zeta.default",
}

func primEntry(name, schema string, f LowerFunc) {
	Register(Entry{Name: "prims::" + name, Schema: "prims::" + name + schema, Kind: Decomposed, Lower: f})
}

// primSameDType converts an aten result back to the operands' dtype where
// aten would promote (an integer or bool operand of a float function).
func primSameDType(c *LowerCtx, out []Value, err error, d dtype.DType) ([]Value, error) {
	if err != nil || len(out) != 1 || out[0].T == nil {
		return out, err
	}
	return one(c.Convert(out[0].T, d)), nil
}

func init() {
	for prim, target := range primsSame {
		primEntry(prim, "(Tensor self) -> Tensor", renamed("aten::"+target, nil))
	}
	for prim, target := range primsBinary {
		primEntry(prim, "(Tensor self, Tensor other) -> Tensor", renamed("aten::"+target, nil))
	}
	primEntry("pow", "(Tensor self, Tensor other) -> Tensor",
		renamed("aten::pow.Tensor_Tensor", map[string]string{"other": "exponent"}))
	primEntry("div", "(Tensor self, Tensor other) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Value("self"), a.Value("other")
		if t := a.Tensor("self"); t != nil && !c.DType(t).IsFloat() && !c.DType(t).IsComplex() {
			return c.Call("aten::div.Tensor_mode", []Value{x, y}, map[string]Value{"rounding_mode": StrValue("trunc")})
		}
		return c.Call("aten::div.Tensor", []Value{x, y}, nil)
	})
	primEntry("where", "(Tensor pred, Tensor a, Tensor b) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::where.self", []Value{a.Value("pred"), a.Value("a"), a.Value("b")}, nil)
	})

	// Casts, copies and identities on values.
	primEntry("convert_element_type", "(Tensor a, ScalarType dtype) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::_to_copy.default", []Value{a.Value("a")}, map[string]Value{"dtype": a.Value("dtype")})
	})
	identity := func(param string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) { return one(a.Tensor(param)), nil }
	}
	primEntry("device_put", "(Tensor a, Device device, bool non_blocking=False) -> Tensor", identity("a"))
	primEntry("view_of", "(Tensor(a) a) -> Tensor(a)", identity("a"))
	primEntry("clone", "(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", identity("self"))
	primEntry("copy_strided", "(Tensor a, SymInt[] stride) -> Tensor", identity("a"))
	primEntry("conj", "(Tensor(a) a) -> Tensor(a)", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::conj_physical.default", []Value{a.Value("a")}, nil)
	})
	primEntry("real", "(Tensor(a) self) -> Tensor(a)", renamed("aten::real.default", nil))
	primEntry("imag", "(Tensor(a) self) -> Tensor(a)", renamed("aten::imag.default", nil))

	// Shapes.
	primEntry("broadcast_in_dim", "(Tensor(a) a, SymInt[] shape, int[] broadcast_dimensions) -> Tensor(a)",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			x, shape, dims := a.Tensor("a"), a.Ints("shape"), a.Ints("broadcast_dimensions")
			if a.Err() != nil {
				return nil, a.Err()
			}
			if len(dims) != c.Rank(x) {
				return nil, c.Errorf("broadcast_in_dim: %d broadcast dimensions for a rank-%d tensor", len(dims), c.Rank(x))
			}
			return one(c.BroadcastInDim(x, shape, dims)), nil
		})
	primEntry("reshape", "(Tensor a, SymInt[] shape) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::reshape.default", []Value{a.Value("a"), a.Value("shape")}, nil)
	})
	collapse := func(c *LowerCtx, a *Args) ([]Value, error) {
		x, start, end := a.Tensor("a"), a.Int("start"), a.Int("end")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		if len(shape) == 0 || start == end {
			return one(x), nil
		}
		if start < 0 || end >= int64(len(shape)) || start > end {
			return nil, c.Errorf("collapse: bad range [%d, %d] for rank %d", start, end, len(shape))
		}
		n := int64(1)
		for _, d := range shape[start : end+1] {
			n *= d
		}
		out := append(append(append([]int64{}, shape[:start]...), n), shape[end+1:]...)
		return one(c.Reshape(x, out)), nil
	}
	primEntry("collapse", "(Tensor a, int start, int end) -> Tensor", collapse)
	primEntry("collapse_view", "(Tensor(a) a, int start, int end) -> Tensor(a)", collapse)
	primEntry("split_dim", "(Tensor(a) a, int dim, SymInt outer_length) -> Tensor(a)", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, dim, outer := a.Tensor("a"), a.Int("dim"), a.Int("outer_length")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		if dim < 0 || dim >= int64(len(shape)) || outer <= 0 || shape[dim]%outer != 0 {
			return nil, c.Errorf("split_dim: cannot split dim %d of %v into %d", dim, shape, outer)
		}
		out := append(append(append([]int64{}, shape[:dim]...), outer, shape[dim]/outer), shape[dim+1:]...)
		return one(c.Reshape(x, out)), nil
	})
	primEntry("squeeze", "(Tensor(a) a, int[] dimensions) -> Tensor(a)", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::squeeze.dims", []Value{a.Value("a"), a.Value("dimensions")}, nil)
	})
	primEntry("transpose", "(Tensor(a) a, int[] permutation) -> Tensor(a)", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::permute.default", []Value{a.Value("a"), a.Value("permutation")}, nil)
	})
	primEntry("rev", "(Tensor a, int[] dims) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::flip.default", []Value{a.Value("a"), a.Value("dims")}, nil)
	})
	primEntry("cat", "(Tensor[] tensors, int dim) -> Tensor", renamed("aten::cat.default", nil))
	primEntry("as_strided", "(Tensor(a!) a, SymInt[] size, SymInt[] stride, SymInt storage_offset) -> Tensor(a!)",
		renamed("aten::as_strided.default", map[string]string{"a": "self"}))

	// Reductions keep the operand's dtype unless output_dtype is given.
	reduction := func(target string, dtypeParam bool) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("inp")
			if a.Err() != nil {
				return nil, a.Err()
			}
			d := c.DType(x)
			if od, ok := a.OptDType("output_dtype"); ok {
				d = od
			}
			dims, ok := a.OptInts("dims")
			if !ok {
				dims = make([]int64, c.Rank(x))
				for i := range dims {
					dims[i] = int64(i)
				}
			}
			kw := map[string]Value{"keepdim": BoolValue(false)}
			if dtypeParam {
				kw["dtype"] = DTypeValue(d)
			}
			out, err := c.Call(target, []Value{TensorValue(x), IntsValue(dims)}, kw)
			return primSameDType(c, out, err, d)
		}
	}
	primEntry("sum", "(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor", reduction("aten::sum.dim_IntList", true))
	primEntry("amax", "(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor", reduction("aten::amax.default", false))
	primEntry("amin", "(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor", reduction("aten::amin.default", false))
	primEntry("prod", "(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("inp")
		if a.Err() != nil {
			return nil, a.Err()
		}
		d := c.DType(x)
		if od, ok := a.OptDType("output_dtype"); ok {
			d = od
		}
		x = c.Convert(x, d)
		dims, ok := a.OptInts("dims")
		if !ok {
			dims = make([]int64, c.Rank(x))
			for i := range dims {
				dims[i] = int64(i)
			}
		}
		sorted := append([]int64(nil), dims...)
		for i := range sorted {
			if sorted[i] < 0 {
				sorted[i] += int64(c.Rank(x))
			}
		}
		sortDesc(sorted) // highest dim first, so that the others keep their place
		seen := map[int64]bool{}
		for _, dim := range sorted {
			if seen[dim] {
				continue
			}
			seen[dim] = true
			x = c.Call1("aten::prod.dim_int", TensorValue(x), IntValue(dim), BoolValue(false), DTypeValue(d))
		}
		return one(x), nil
	})
	primEntry("var", "(Tensor inp, int[]? dims, float? correction=1, *, ScalarType? output_dtype=None) -> Tensor",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			kw := map[string]Value{"keepdim": BoolValue(false)}
			if a.Has("correction") {
				kw["correction"] = a.Value("correction")
			}
			out, err := c.Call("aten::var.correction", []Value{a.Value("inp"), a.Value("dims")}, kw)
			if d, ok := a.OptDType("output_dtype"); ok {
				return primSameDType(c, out, err, d)
			}
			return out, err
		})

	// Creation.
	primEntry("iota", "(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			n, start, step, d := a.Int("length"), a.Int("start"), a.Int("step"), a.DType("dtype")
			if a.Err() != nil {
				return nil, a.Err()
			}
			x := c.Iota(dtype.I64, []int64{n}, 0)
			x = c.Binary("add", c.Binary("multiply", x, c.SplatInt(dtype.I64, []int64{n}, step)),
				c.SplatInt(dtype.I64, []int64{n}, start))
			return one(c.Convert(x, d)), nil
		})
	primEntry("full", "(SymInt[] shape, Scalar fill_value, *, ScalarType dtype, Device device, bool requires_grad) -> Tensor",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			return one(c.ScalarFull(a.Scalar("fill_value"), a.DType("dtype"), a.Ints("shape"))), nil
		})
	primEntry("full_like", "(Tensor a, Scalar fill_value, *, ScalarType dtype, Device device, bool requires_grad) -> Tensor",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			return one(c.ScalarFull(a.Scalar("fill_value"), a.DType("dtype"), c.Shape(a.Tensor("a")))), nil
		})
	primEntry("fill", "(Tensor self, Scalar value) -> Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return one(c.ScalarFull(a.Scalar("value"), c.DType(x), c.Shape(x))), nil
	})
	primEntry("scalar_tensor", "(Scalar s, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			s := a.Scalar("s")
			d := s.DType()
			if od, ok := a.OptDType("dtype"); ok {
				d = od
			}
			return one(c.ScalarFull(s, d, nil)), nil
		})
	empty := func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(c.Splat(a.DType("dtype"), a.Ints("shape"), 0)), nil
	}
	primEntry("empty", "(SymInt[] shape, *, ScalarType dtype, Device device, bool requires_grad) -> Tensor", empty)
	primEntry("empty_strided", "(SymInt[] shape, SymInt[] strides, *, ScalarType dtype, Device device, bool requires_grad) -> Tensor", empty)
	primEntry("empty_permuted", "(SymInt[] shape, int[] physical_layout, *, ScalarType dtype, Device device, bool requires_grad) -> Tensor", empty)
	primEntry("frexp", "(Tensor self) -> (Tensor mantissa, Tensor exponent)", renamed("aten::frexp.Tensor", nil))
	primEntry("svd", "(Tensor A, *, bool full_matrices) -> (Tensor U, Tensor S, Tensor Vh)",
		func(c *LowerCtx, a *Args) ([]Value, error) {
			return c.Call("aten::linalg_svd.default", []Value{a.Value("A"), a.Value("full_matrices")}, nil)
		})
}

func sortDesc(xs []int64) { sort.Slice(xs, func(i, j int) bool { return xs[i] > xs[j] }) }
