package dtype

import "fmt"

// PyTorch numbers its element types (c10::ScalarType). Tensors cross the C
// ABI and the eager device's argument words with these numbers, so that a
// caller holding a torch.Tensor passes its dtype without a table of its
// own. Only the types torchtpu computes with have a number here.
var scalarTypes = map[int32]DType{
	0:  U8,
	1:  I8,
	2:  I16,
	3:  I32,
	4:  I64,
	5:  F16,
	6:  F32,
	7:  F64,
	9:  C64,
	10: C128,
	11: Bool,
	15: BF16,
	23: F8E5M2,
	24: F8E4M3FN,
	25: F8E5M2FNUZ,
	26: F8E4M3FNUZ,
	27: U16,
	28: U32,
	29: U64,
}

var scalarCodes = func() map[DType]int32 {
	m := map[DType]int32{}
	for c, d := range scalarTypes {
		m[d] = c
	}
	return m
}()

// OfScalarType returns the element type of a c10::ScalarType number.
func OfScalarType(code int32) (DType, error) {
	if d, ok := scalarTypes[code]; ok {
		return d, nil
	}
	return Invalid, fmt.Errorf("dtype code %d is not a torch dtype torchtpu supports", code)
}

// ScalarType returns the c10::ScalarType number of d.
func (d DType) ScalarType() (int32, error) {
	if c, ok := scalarCodes[d]; ok {
		return c, nil
	}
	return -1, fmt.Errorf("dtype %v has no torch equivalent", d)
}
