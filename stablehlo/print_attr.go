package stablehlo

import (
	"strconv"
	"strings"
)

// dict prints `{a = 1 : i64, b, c = "x"}` (a UnitAttr prints as its name
// alone), in the order given (the IR keeps dictionaries sorted).
func (p *printer) dict(d []NamedAttr) {
	p.str("{")
	for i, a := range d {
		if i > 0 {
			p.str(", ")
		}
		p.str(attrName(a.Name))
		if _, unit := a.Value.(UnitAttr); unit {
			continue
		}
		p.str(" = ")
		p.attr(a.Value, false)
	}
	p.str("}")
}

func attrName(s string) string {
	if isBareID(s) {
		return s
	}
	return quote(s)
}

// attr prints an attribute value. bare is set inside #dialect.name<...>
// struct bodies, where numbers carry no `: type` suffix.
func (p *printer) attr(a Attr, bare bool) {
	switch a := a.(type) {
	case *IntAttr:
		p.intAttr(a, bare)
	case *FloatAttr:
		p.floatAttr(a, bare)
	case BoolAttr:
		p.str(strconv.FormatBool(bool(a)))
	case StringAttr:
		p.str(quote(string(a)))
	case UnitAttr:
		p.str("unit")
	case ArrayAttr:
		p.str("[")
		for i, e := range a {
			if i > 0 {
				p.str(", ")
			}
			p.attr(e, bare)
		}
		p.str("]")
	case *DenseArrayAttr:
		p.denseArray(a)
	case *DenseAttr:
		p.dense(a)
	case *TypeAttr:
		p.typ(a.Type)
	case SymbolRefAttr:
		p.symbolRef(string(a))
	case DictAttr:
		p.dict(a)
	case *EnumAttr:
		p.enum(a)
	case *GatherDims:
		p.str("#stablehlo.gather<")
		sep := p.fields([]string{"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map"},
			[][]int64{a.OffsetDims, a.CollapsedSliceDims, a.OperandBatchingDims, a.StartIndicesBatchingDims, a.StartIndexMap})
		p.indexVectorDim(sep, a.IndexVectorDim)
	case *ScatterDims:
		p.str("#stablehlo.scatter<")
		sep := p.fields([]string{"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
			[][]int64{a.UpdateWindowDims, a.InsertedWindowDims, a.InputBatchingDims, a.ScatterIndicesBatchingDims, a.ScatterDimsToOperandDims})
		p.indexVectorDim(sep, a.IndexVectorDim)
	case *DotDims:
		p.str("#stablehlo.dot<")
		p.fields([]string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"},
			[][]int64{a.LhsBatchingDims, a.RhsBatchingDims, a.LhsContractingDims, a.RhsContractingDims})
		p.str(">")
	case *ConvDims:
		p.convDims(a)
	case *StructAttr:
		p.str("#" + a.Name + "<")
		for i, f := range a.Fields {
			if i > 0 {
				p.str(", ")
			}
			p.str(f.Name + " = ")
			p.attr(f.Value, true)
		}
		p.str(">")
	case *OpaqueAttr:
		p.str(a.Text)
	case bareWord: // a parser-internal identifier, should one reach the IR
		p.str(string(a))
	case nil:
		p.fail("nil attribute")
	default:
		p.fail("unknown attribute kind %T", a)
	}
}

func (p *printer) indexVectorDim(sep bool, d int64) {
	if sep {
		p.str(", ")
	}
	p.str("index_vector_dim = " + strconv.FormatInt(d, 10) + ">")
}

// fields prints `name = [..]` pairs, omitting empty lists (their default);
// it reports whether it printed any.
func (p *printer) fields(names []string, vals [][]int64) bool {
	first := true
	for i, v := range vals {
		if len(v) == 0 {
			continue
		}
		if !first {
			p.str(", ")
		}
		first = false
		p.str(names[i] + " = " + intList(v))
	}
	return !first
}

func intList(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (p *printer) intAttr(a *IntAttr, bare bool) {
	e, typed := a.Type.(ElemType)
	switch {
	case typed && e.Quant == nil && e.DType.IsUnsigned():
		p.str(strconv.FormatUint(uint64(a.Value)&widthMask(e.DType.Bits()), 10))
	default:
		p.str(strconv.FormatInt(a.Value, 10))
	}
	if bare {
		return
	}
	if a.Type == nil {
		p.str(" : i64")
		return
	}
	p.str(" : ")
	p.typ(a.Type)
}

func widthMask(bits int) uint64 {
	if bits >= 64 || bits <= 0 {
		return ^uint64(0)
	}
	return 1<<uint(bits) - 1
}

func (p *printer) floatAttr(a *FloatAttr, bare bool) {
	e, typed := a.Type.(ElemType)
	d := e.DType
	if !typed || !d.IsFloat() {
		d = 0
	}
	s := formatFloatAs(a.Value, d)
	p.str(s)
	if bare {
		return
	}
	if a.Type == nil {
		p.str(" : f64")
		return
	}
	p.str(" : ")
	p.typ(a.Type)
}

func (p *printer) symbolRef(s string) {
	// Nested references are kept as "a::@b".
	parts := strings.Split(s, "::@")
	for i, part := range parts {
		if i > 0 {
			p.str("::")
		}
		p.str("@" + symbolName(part))
	}
}

// Enum kinds whose attribute prints as #dialect.kind<VALUE>; the others
// print as #dialect<kind VALUE>, as StableHLO's own enums do.
var bracketEnums = map[string]bool{"result_accuracy_mode": true}

func (p *printer) enum(a *EnumAttr) {
	if bracketEnums[a.Kind] {
		p.str("#" + a.Dialect + "." + a.Kind + "<" + a.Value + ">")
		return
	}
	p.str("#" + a.Dialect + "<" + a.Kind + " " + a.Value + ">")
}

// convDims prints the compact #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>
// form, or the raw form when the numbers do not describe a layout.
func (p *printer) convDims(c *ConvDims) {
	in, ok1 := convLayoutText(c.InputBatchDim, c.InputFeatureDim, c.InputSpatialDims, 'b', 'f')
	k, ok2 := convLayoutText(c.KernelInputFeatureDim, c.KernelOutputFeatureDim, c.KernelSpatialDims, 'i', 'o')
	out, ok3 := convLayoutText(c.OutputBatchDim, c.OutputFeatureDim, c.OutputSpatialDims, 'b', 'f')
	if ok1 && ok2 && ok3 {
		p.str("#stablehlo.conv<" + in + "x" + k + "->" + out + ">")
		return
	}
	p.str("#stablehlo.conv<raw input_batch_dimension = " + strconv.FormatInt(c.InputBatchDim, 10) +
		", input_feature_dimension = " + strconv.FormatInt(c.InputFeatureDim, 10) +
		", input_spatial_dimensions = " + intList(c.InputSpatialDims) +
		", kernel_input_feature_dimension = " + strconv.FormatInt(c.KernelInputFeatureDim, 10) +
		", kernel_output_feature_dimension = " + strconv.FormatInt(c.KernelOutputFeatureDim, 10) +
		", kernel_spatial_dimensions = " + intList(c.KernelSpatialDims) +
		", output_batch_dimension = " + strconv.FormatInt(c.OutputBatchDim, 10) +
		", output_feature_dimension = " + strconv.FormatInt(c.OutputFeatureDim, 10) +
		", output_spatial_dimensions = " + intList(c.OutputSpatialDims) + ">")
}

func convLayoutText(a, b int64, spatial []int64, ca, cb byte) (string, bool) {
	n := len(spatial) + 2
	slots := make([]string, n)
	put := func(d int64, s string) bool {
		if d < 0 || d >= int64(n) || slots[d] != "" {
			return false
		}
		slots[d] = s
		return true
	}
	if !put(a, string(ca)) || !put(b, string(cb)) {
		return "", false
	}
	for i, d := range spatial {
		if !put(d, strconv.Itoa(i)) {
			return "", false
		}
	}
	return "[" + strings.Join(slots, ", ") + "]", true
}

// quote spells s as an MLIR string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString("\\n")
		case c == '\t':
			b.WriteString("\\t")
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)))
			b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)&15, 16)))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
