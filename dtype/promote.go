package dtype

import "fmt"

// PyTorch's type promotion (c10::promoteTypes and at::native::result_type).
//
// Promote folds two dtypes with PyTorch's table; ResultType folds the
// operands of one op with its three priority slots: dimensioned tensors,
// zero-dim tensors, and wrapped numbers (Python scalars).

// Default dtypes PyTorch gives Python scalars (torch.get_default_dtype() is
// float32).
const (
	DefaultFloat   = F32
	DefaultInt     = I64
	DefaultComplex = C64
)

// category orders dtypes as PyTorch's promotion does: bool < integral <
// floating < complex.
func category(d DType) int {
	switch {
	case d == Bool:
		return 0
	case d.IsInteger():
		return 1
	case d.IsFloat():
		return 2
	case d.IsComplex():
		return 3
	}
	return -1
}

// promotable lists the dtypes the promotion table covers, in its order.
var promotable = []DType{Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, C64, C128}

// promoteTable is c10's table over promotable (row: a, column: b).
var promoteTable = func() map[[2]DType]DType {
	const (
		b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8 = Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, C64, C128
	)
	rows := [][]DType{
		/* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
		/* u8 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
		/* i8 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
		/* i16 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
		/* i32 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
		/* i64 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
		/* f16 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
		/* bf16 */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
		/* f32 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
		/* f64 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
		/* c64 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
		/* c128 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
	}
	m := map[[2]DType]DType{}
	for i, a := range promotable {
		for j, b := range promotable {
			m[[2]DType{a, b}] = rows[i][j]
		}
	}
	return m
}()

// Promote returns torch.promote_types(a, b). Invalid acts as "undefined":
// Promote(Invalid, b) is b. The barebones unsigned types (uint16/32/64)
// promote only with themselves and with floats; float8 and other narrow
// types only with themselves. Anything else is an error, as in PyTorch.
func Promote(a, b DType) (DType, error) {
	if a == Invalid {
		return b, nil
	}
	if b == Invalid || a == b {
		return a, nil
	}
	if r, ok := promoteTable[[2]DType{a, b}]; ok {
		return r, nil
	}
	barebones := func(d DType) bool { return d == U16 || d == U32 || d == U64 }
	if barebones(a) || barebones(b) {
		switch {
		case a.IsFloat() && !barebones(a) && isPromotable(a):
			return a, nil
		case b.IsFloat() && !barebones(b) && isPromotable(b):
			return b, nil
		}
		return Invalid, fmt.Errorf("promotion for uint16, uint32, uint64 types is not supported (%s and %s)", torchName(a), torchName(b))
	}
	return Invalid, fmt.Errorf("promotion of %s and %s is not supported", torchName(a), torchName(b))
}

func isPromotable(d DType) bool {
	for _, p := range promotable {
		if p == d {
			return true
		}
	}
	return false
}

func torchName(d DType) string {
	if n := d.Torch(); n != "" {
		return n
	}
	return d.String()
}

// toComplex is c10::toComplexType for the types promotion produces.
// float16 and bfloat16 map to complex32 / bcomplex32, which this project
// does not model: an error.
func toComplex(d DType) (DType, error) {
	switch d {
	case F32:
		return C64, nil
	case F64:
		return C128, nil
	case C64, C128:
		return d, nil
	}
	return Invalid, fmt.Errorf("promotion of %s with a complex number gives a half-precision complex type, which is not supported", torchName(d))
}

// Operand is one input of an op as promotion sees it.
type Operand struct {
	DType DType
	// ZeroDim marks a 0-dim tensor (the middle-priority slot).
	ZeroDim bool
	// Wrapped marks a wrapped number: a Python scalar (lowest priority).
	// Its DType is the Python type's: Bool, I64, F64 or C128 (or already
	// the defaults F32/C64); floats and complexes use the default dtypes.
	Wrapped bool
}

// Promoter accumulates operands; ResultType returns the result dtype. The
// zero value is ready to use.
type Promoter struct {
	dim, zero, wrapped DType
	err                error
}

// Add folds one operand into the state.
func (p *Promoter) Add(o Operand) {
	if p.err != nil || o.DType == Invalid {
		return
	}
	slot := &p.dim
	d := o.DType
	switch {
	case o.Wrapped:
		slot = &p.wrapped
		switch {
		case d.IsFloat():
			d = DefaultFloat
		case d.IsComplex():
			d = DefaultComplex
		case d.IsInteger():
			d = DefaultInt
		}
	case o.ZeroDim:
		slot = &p.zero
	}
	r, err := Promote(*slot, d)
	if err != nil {
		p.err = err
		return
	}
	*slot = r
}

// ResultType returns the promoted dtype of the operands added so far.
func (p *Promoter) ResultType() (DType, error) {
	if p.err != nil {
		return Invalid, p.err
	}
	lower, err := combine(p.zero, p.wrapped)
	if err != nil {
		return Invalid, err
	}
	r, err := combine(p.dim, lower)
	if err != nil {
		return Invalid, err
	}
	if r == Invalid {
		return Invalid, fmt.Errorf("result_type: no operands")
	}
	return r, nil
}

// combine merges a higher-priority slot with a lower one: the lower slot
// contributes only when it raises the category.
func combine(higher, lower DType) (DType, error) {
	switch {
	case higher.IsComplex():
		return higher, nil
	case lower.IsComplex():
		if higher.IsFloat() {
			return toComplex(higher)
		}
		return lower, nil
	case higher.IsFloat():
		return higher, nil
	case higher == Bool || lower.IsFloat():
		return Promote(higher, lower)
	case higher != Invalid:
		return higher, nil
	}
	return lower, nil
}

// ResultType returns torch.result_type over the operands.
func ResultType(ops ...Operand) (DType, error) {
	var p Promoter
	for _, o := range ops {
		p.Add(o)
	}
	return p.ResultType()
}

// CanCast reports whether PyTorch allows writing a value of type from into
// a tensor of type to (in-place ops and out=): not float→integral,
// non-bool→bool, nor complex→non-complex.
func CanCast(from, to DType) bool {
	fc, tc := category(from), category(to)
	switch {
	case fc == 3 && tc != 3:
		return false
	case fc == 2 && tc < 2:
		return false
	case fc != 0 && tc == 0:
		return false
	}
	return true
}

// IsFloatingOrComplex reports whether d is a float or complex type.
func (d DType) IsFloatingOrComplex() bool { return d.IsFloat() || d.IsComplex() }

// Category returns 0 for bool, 1 for integers, 2 for floats, 3 for complex
// and -1 otherwise.
func Category(d DType) int { return category(d) }
