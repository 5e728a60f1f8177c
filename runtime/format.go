package runtime

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Format prints a tensor the way PyTorch's repr does, roughly:
// tensor([[1.0000, 2.0000], ...], dtype=torch.bfloat16). Tensors with more
// than 1000 elements are summarised: each dim keeps its first and last
// `edge` entries around "...".
func Format(l *literal.Literal, edge int) string {
	if l == nil {
		return "None"
	}
	n := l.Len()
	summarize := n > 1000
	f := newElemFormatter(l)
	f.measure()
	var b strings.Builder
	b.WriteString("tensor(")
	if len(l.Shape) == 0 {
		b.WriteString(f.format(0))
	} else {
		writeDim(&b, l, f, 0, 0, summarize, edge, len("tensor("))
	}
	if suffix := dtypeSuffix(l.DType); suffix != "" || n == 0 {
		if n == 0 && len(l.Shape) > 1 {
			fmt.Fprintf(&b, ", size=%v", l.Shape)
		}
		b.WriteString(suffix)
	}
	b.WriteString(")")
	return b.String()
}

func dtypeSuffix(d dtype.DType) string {
	switch d {
	case dtype.F32, dtype.I64, dtype.Bool:
		return ""
	}
	return ", dtype=torch." + d.Torch()
}

func writeDim(b *strings.Builder, l *literal.Literal, f *elemFormatter, dim int, offset int, summarize bool, edge, indent int) {
	b.WriteByte('[')
	size := int(l.Shape[dim])
	stride := 1
	for _, s := range l.Shape[dim+1:] {
		stride *= int(s)
	}
	last := dim == len(l.Shape)-1
	// PyTorch wraps rows at 80 columns: as many elements per line as fit.
	perLine := max(1, (80-indent-dim-1)/(f.width+2))
	onLine := 0
	for i := 0; i < size; i++ {
		if summarize && size > 2*edge && i == edge {
			if last {
				b.WriteString("..., ")
			} else {
				b.WriteString("...,\n" + strings.Repeat(" ", indent+dim+1))
			}
			i = size - edge - 1
			continue
		}
		if last {
			b.WriteString(f.format(offset + i))
		} else {
			writeDim(b, l, f, dim+1, offset+i*stride, summarize, edge, indent)
		}
		if i < size-1 {
			if last {
				b.WriteString(",")
				if onLine++; onLine == perLine {
					b.WriteString("\n" + strings.Repeat(" ", indent+dim+1))
					onLine = 0
				} else {
					b.WriteString(" ")
				}
			} else {
				b.WriteString(",\n" + strings.Repeat("\n", len(l.Shape)-dim-2) + strings.Repeat(" ", indent+dim+1))
			}
		}
	}
	b.WriteByte(']')
}

// elemFormatter picks one notation for all elements, as PyTorch does:
// integers as is; floats with 4 decimals, or scientific when the
// magnitudes span a wide range, or with a trailing '.' when all are whole.
type elemFormatter struct {
	l     *literal.Literal
	sci   bool
	whole bool
	width int // elements are right-aligned to this width, as PyTorch does
}

func newElemFormatter(l *literal.Literal) *elemFormatter {
	f := &elemFormatter{l: l, whole: true}
	if !l.DType.IsFloat() {
		return f
	}
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < l.Len(); i++ {
		v := l.Float64(i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if v != math.Trunc(v) {
			f.whole = false
		}
		if a := math.Abs(v); a != 0 {
			lo, hi = math.Min(lo, a), math.Max(hi, a)
		}
	}
	f.sci = hi > 1e8 || (lo < 1e-4 && !f.whole) || (hi/lo > 1000 && !f.whole && lo != math.Inf(1))
	return f
}

// measure sets the alignment width from the elements (all of them, or the
// first and last thousand of a large tensor).
func (f *elemFormatter) measure() {
	n := f.l.Len()
	for i := 0; i < n; i++ {
		if n > 100000 && i == 1000 {
			i = n - 1000
		}
		f.width = max(f.width, len(f.raw(i)))
	}
}

func (f *elemFormatter) format(i int) string {
	s := f.raw(i)
	if len(s) < f.width {
		s = strings.Repeat(" ", f.width-len(s)) + s
	}
	return s
}

func (f *elemFormatter) raw(i int) string {
	l := f.l
	switch {
	case l.DType == dtype.Bool:
		if l.Int64(i) != 0 {
			return "True"
		}
		return "False"
	case l.DType.IsComplex():
		c := l.Complex128(i)
		return fmt.Sprintf("%.4f%+.4fj", real(c), imag(c))
	case !l.DType.IsFloat():
		if l.DType.IsUnsigned() {
			return strconv.FormatUint(l.Uint64(i), 10)
		}
		return strconv.FormatInt(l.Int64(i), 10)
	}
	v := l.Float64(i)
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case f.sci:
		return strconv.FormatFloat(v, 'e', 4, 64)
	case f.whole:
		return strconv.FormatFloat(v, 'f', 0, 64) + "."
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
