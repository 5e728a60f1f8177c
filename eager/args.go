package eager

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// The arguments of one op call cross the ABI as a flat array of int64
// words, one tagged item per schema argument, in the schema's order (the
// caller walks PyTorch's boxed stack):
//
//	tagNone
//	tagTensor      handle dtype ndim offset sizes[ndim] strides[ndim]
//	tagInt         value
//	tagFloat       float64 bits
//	tagBool        0|1
//	tagInts        n values[n]
//	tagDType       c10::ScalarType number
//	tagList        n items[n]                (Tensor[], Tensor?[]: tagTensor or tagNone items)
//	tagStr         nbytes words[ceil(nbytes/8)]
//	tagComplex     re bits, im bits
//	tagFloats      n bits[n]
//	tagBools       n values[n]
//	tagScalar      dtype wrapped value value2 (a CPU 0-d tensor in a Tensor slot; value2 is a complex's imaginary part)
//	tagHostTensor  pointer extent dtype ndim sizes[ndim] strides[ndim] (CPU memory, read during the call)
//
// Offsets and strides are in elements. Float scalars are float64 bits,
// ints and bools int64.
const (
	tagNone int64 = iota
	tagTensor
	tagInt
	tagFloat
	tagBool
	tagInts
	tagDType
	tagList
	tagStr
	tagComplex
	tagFloats
	tagBools
	tagScalar
	tagHostTensor
)

// earg is one decoded argument.
type earg struct {
	tag     int64
	buf     *Buffer
	view    View
	i       int64
	f       float64
	c       complex128
	s       string
	b       bool
	wrapped bool
	dt      dtype.DType
	ints    []int64
	floats  []float64
	bools   []bool
	list    []earg
	lit     *literal.Literal
}

// isTensor reports whether a is a device tensor.
func (a *earg) isTensor() bool { return a.tag == tagTensor }

// decoder reads argument words and writes the call's signature key: the
// op, each tensor's dtype and sizes (not its storage, offset or strides,
// which the compiled program does not see), each CPU scalar's dtype (not
// its value, a program argument) and every other argument's value.
type decoder struct {
	host Host // resolves buffer handles and reads CPU tensors
	w    []int64
	pos  int
	key  []byte
	err  error
	// nokey skips the key (a replayed call's plan is known: replay.go).
	nokey bool
	// vals are the positions of the words that are values rather than
	// structure: tensor handles, scalars' values, CPU tensors' pointers
	// and extents. Two calls whose other words agree have one key and one
	// fused structure, but for which buffers their handles name.
	vals []int32
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

// errDType marks an argument of a dtype the engine does not support.
var errDType = errors.New("unsupported dtype")

// dtypeOf reads a dtype code, recording errDType for one the engine lacks.
func (d *decoder) dtypeOf(code int64) dtype.DType {
	dt, err := dtype.OfScalarType(int32(code))
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("%w: %v", errDType, err)
	}
	return dt
}

func (d *decoder) word() int64 {
	if d.pos >= len(d.w) {
		d.fail("argument words end early (%d words)", len(d.w))
		d.pos++
		return 0
	}
	v := d.w[d.pos]
	d.pos++
	return v
}

func (d *decoder) count(what string) int {
	n := d.word()
	if n < 0 || n > int64(len(d.w)) {
		d.fail("%s: bad count %d", what, n)
		return 0
	}
	return int(n)
}

func (d *decoder) keyWord(v int64) {
	if !d.nokey {
		d.key = binary.LittleEndian.AppendUint64(d.key, uint64(v))
	}
}

func (d *decoder) keyBytes(b ...byte) {
	if !d.nokey {
		d.key = append(d.key, b...)
	}
}

// value notes that the next word is a value (decoder.vals).
func (d *decoder) value() { d.vals = append(d.vals, int32(d.pos)) }

// decode reads all arguments of an op call into args (reused).
func (d *decoder) decode(op int32, words []int64, args []earg) ([]earg, error) {
	d.w, d.pos, d.err, d.vals = words, 0, nil, d.vals[:0]
	if !d.nokey {
		d.key = binary.LittleEndian.AppendUint32(d.key[:0], uint32(op))
	}
	args = args[:0]
	for d.pos < len(d.w) && d.err == nil {
		args = append(args, d.item())
	}
	return args, d.err
}

func (d *decoder) item() earg {
	a := earg{tag: d.word()}
	d.keyBytes(byte(a.tag))
	switch a.tag {
	case tagNone:
	case tagTensor:
		d.value()
		h := uint64(d.word())
		a.view = d.view()
		if d.err != nil {
			return a
		}
		b, err := d.host.Buffer(h)
		if err != nil {
			d.fail("%v", err)
			return a
		}
		a.buf = b
	case tagInt, tagBool:
		a.i = d.word()
		a.b = a.i != 0
		d.keyWord(a.i)
	case tagFloat:
		bits := d.word()
		a.f = math.Float64frombits(uint64(bits))
		d.keyWord(bits)
	case tagComplex:
		re, im := d.word(), d.word()
		a.c = complex(math.Float64frombits(uint64(re)), math.Float64frombits(uint64(im)))
		d.keyWord(re)
		d.keyWord(im)
	case tagInts, tagBools, tagFloats:
		n := d.count("list")
		d.keyWord(int64(n))
		for k := 0; k < n; k++ {
			v := d.word()
			d.keyWord(v)
			switch a.tag {
			case tagInts:
				a.ints = append(a.ints, v)
			case tagBools:
				a.bools = append(a.bools, v != 0)
			default:
				a.floats = append(a.floats, math.Float64frombits(uint64(v)))
			}
		}
	case tagDType:
		code := d.word()
		d.keyWord(code)
		a.dt = d.dtypeOf(code)
	case tagList:
		n := d.count("tensor list")
		d.keyWord(int64(n))
		for k := 0; k < n && d.err == nil; k++ {
			it := d.item()
			if it.tag != tagTensor && it.tag != tagNone && it.tag != tagHostTensor && it.tag != tagScalar {
				d.fail("tensor list item %d has tag %d", k, it.tag)
			}
			a.list = append(a.list, it)
		}
	case tagStr:
		n := d.count("string")
		d.keyWord(int64(n))
		words := (n + 7) / 8
		if d.pos+words > len(d.w) {
			d.fail("string of %d bytes runs past the argument words", n)
			return a
		}
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d.w[d.pos:d.pos+words]))), words*8)
		a.s = string(raw[:n])
		d.keyBytes(raw[:n]...)
		d.pos += words
	case tagScalar:
		code := d.word()
		a.wrapped = d.word() != 0
		d.value()
		v1 := d.word()
		d.value()
		v2 := d.word()
		dt := d.dtypeOf(code)
		if d.err != nil {
			return a
		}
		a.dt = dt
		switch {
		case dt.IsComplex():
			a.c = complex(math.Float64frombits(uint64(v1)), math.Float64frombits(uint64(v2)))
		case dt.IsFloat():
			a.f = math.Float64frombits(uint64(v1))
		default:
			a.i = v1
		}
		d.keyWord(code)
		d.keyBytes(b2u(a.wrapped))
	case tagHostTensor:
		var ptr unsafe.Pointer
		if d.pos < len(d.w) {
			// The word holds a C pointer: read it as one.
			ptr = *(*unsafe.Pointer)(unsafe.Pointer(&d.w[d.pos]))
		}
		d.value()
		d.word()
		d.value()
		extent := d.word()
		code := d.word()
		nd := d.count("rank")
		if nd > MaxRank {
			d.fail("rank %d is over the limit of %d", nd, MaxRank)
			return a
		}
		shape, strides := make([]int64, nd), make([]int64, nd)
		for k := range shape {
			shape[k] = d.word()
		}
		for k := range strides {
			strides[k] = d.word()
		}
		if d.err != nil {
			return a
		}
		l, err := d.host.CopyTensor(ptr, extent, int32(code), shape, strides)
		if err != nil {
			d.fail("CPU tensor argument: %v", err)
			return a
		}
		a.lit, a.dt = l, l.DType
		d.keyWord(code)
		d.keyWord(int64(nd))
		for _, s := range l.Shape {
			d.keyWord(s)
		}
	default:
		d.fail("unknown argument tag %d", a.tag)
	}
	return a
}

// view reads dtype ndim offset sizes strides and keys dtype and sizes
// (and whether a stride is 0: PyTorch rejects writes through such views,
// which the first call of a signature checks).
func (d *decoder) view() View {
	code := d.word()
	nd := d.count("rank")
	if nd > MaxRank {
		d.fail("rank %d is over the limit of %d", nd, MaxRank)
		return View{}
	}
	v := View{Offset: d.word()}
	v.DType = d.dtypeOf(code)
	d.keyWord(code)
	d.keyWord(int64(nd))
	if d.pos+2*nd > len(d.w) {
		d.fail("argument words end early (%d words)", len(d.w))
		d.pos = len(d.w)
		return View{}
	}
	// sizes and strides slice the words (which the caller owns)
	v.Shape = d.w[d.pos : d.pos+nd : d.pos+nd]
	v.Strides = d.w[d.pos+nd : d.pos+2*nd : d.pos+2*nd]
	d.pos += 2 * nd
	zero := false
	for k := range v.Shape {
		d.keyWord(v.Shape[k])
		if v.Strides[k] == 0 && v.Shape[k] > 1 {
			zero = true
		}
	}
	d.keyBytes(b2u(zero))
	return v
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// DecodeView reads one tagTensor item (a tensor's buffer handle and view)
// from words, for reads and writes of a single tensor.
func DecodeView(words []int64) (uint64, View, error) {
	d := decoder{w: append([]int64(nil), words...)}
	if t := d.word(); t != tagTensor {
		return 0, View{}, fmt.Errorf("want a tensor item, have tag %d", t)
	}
	h := uint64(d.word())
	v := d.view()
	if d.err == nil && d.pos != len(words) {
		d.fail("%d words after the tensor item", len(words)-d.pos)
	}
	return h, v, d.err
}
