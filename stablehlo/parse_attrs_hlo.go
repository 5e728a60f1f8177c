package stablehlo

import "strconv"

// parseHashAttr parses an attribute starting with '#': an alias, an enum
// (#stablehlo<comparison_direction EQ> or #stablehlo.precision<HIGH>), the
// structured dimension attributes (gather, scatter, dot, conv), or any
// other #dialect.name<...> (as a StructAttr when its body is `k = v, ...`,
// else kept verbatim).
func (p *parser) parseHashAttr() Attr {
	at := p.here()
	p.pos++ // '#'
	name := p.suffixID()
	if p.pos >= p.end || p.src[p.pos] != '<' {
		if a, ok := p.attrAliases[name]; ok {
			return a
		}
		if len(name) >= 3 && name[:3] == "loc" {
			return &OpaqueAttr{Text: "#" + name} // a location alias defined later
		}
		p.fail(at, "undefined attribute alias #%s", name)
	}
	switch name {
	case "stablehlo.gather", "mhlo.gather":
		return p.parseGatherDims()
	case "stablehlo.scatter", "mhlo.scatter":
		return p.parseScatterDims()
	case "stablehlo.dot", "mhlo.dot":
		return p.parseDotDims()
	case "stablehlo.conv", "mhlo.conv":
		p.expect("<")
		var c *ConvDims
		if p.acceptKeyword("raw") {
			c = p.parseConvRaw()
		} else {
			c = p.parseConvDims()
		}
		p.expect(">")
		return c
	}
	dialect, kind, hasKind := cutDot(name)
	bodyAt := p.here()
	if !hasKind {
		// #dialect<kind VALUE>
		var e *EnumAttr
		if p.tryParse(func() {
			p.expect("<")
			k := p.expectIdent("an enum kind")
			v := p.expectIdent("an enum value")
			p.expect(">")
			e = &EnumAttr{Dialect: dialect, Kind: k, Value: v}
		}) {
			return e
		}
		return &OpaqueAttr{Text: "#" + name + p.balanced()}
	}
	// #dialect.kind<VALUE>
	var e *EnumAttr
	if p.tryParse(func() {
		p.expect("<")
		v := p.expectIdent("an enum value")
		p.expect(">")
		e = &EnumAttr{Dialect: dialect, Kind: kind, Value: v}
	}) {
		return e
	}
	var s *StructAttr
	if p.tryParse(func() {
		s = &StructAttr{Name: name, Fields: p.parseStructFields()}
	}) {
		return s
	}
	p.pos = bodyAt
	return &OpaqueAttr{Text: "#" + name + p.balanced()}
}

// cutDot splits "stablehlo.gather" into "stablehlo" and "gather".
func cutDot(name string) (string, string, bool) {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return name[:i], name[i+1:], true
		}
	}
	return name, "", false
}

// parseStructFields parses `<k = v, ...>` (values may be bare words).
func (p *parser) parseStructFields() []NamedAttr {
	p.expect("<")
	fs := []NamedAttr{}
	if p.accept(">") {
		return fs
	}
	for {
		k := p.expectIdent("a field name")
		p.expect("=")
		fs = append(fs, NamedAttr{Name: k, Value: plainAttr(p.parseAttrMode(modeBare))})
		if p.accept(">") {
			return fs
		}
		p.expect(",")
		if p.accept(">") { // a trailing comma is allowed
			return fs
		}
	}
}

// parseIntList parses `[1, 2, ...]`.
func (p *parser) parseIntList() []int64 {
	p.expect("[")
	v := []int64{}
	if p.accept("]") {
		return v
	}
	for {
		v = append(v, p.parseInt64())
		if p.accept("]") {
			return v
		}
		p.expect(",")
	}
}

// dimFields parses `<name = [..] | int, ...>` into the given setters.
func (p *parser) dimFields(what string, lists map[string]*[]int64, ints map[string]*int64) {
	p.expect("<")
	if p.accept(">") {
		return
	}
	seen := map[string]bool{}
	for {
		fat := p.here()
		k := p.expectIdent("a field name")
		if seen[k] {
			p.fail(fat, "field %q given twice in %s", k, what)
		}
		seen[k] = true
		p.expect("=")
		if l, ok := lists[k]; ok {
			*l = p.parseIntList()
		} else if n, ok := ints[k]; ok {
			*n = p.parseInt64()
		} else {
			p.fail(fat, "unknown field %q in %s", k, what)
		}
		if p.accept(">") {
			return
		}
		p.expect(",")
		if p.accept(">") { // a trailing comma is allowed
			return
		}
	}
}

func (p *parser) parseGatherDims() *GatherDims {
	g := &GatherDims{OffsetDims: []int64{}, CollapsedSliceDims: []int64{}, OperandBatchingDims: []int64{},
		StartIndicesBatchingDims: []int64{}, StartIndexMap: []int64{}}
	p.dimFields("#stablehlo.gather", map[string]*[]int64{
		"offset_dims":                 &g.OffsetDims,
		"collapsed_slice_dims":        &g.CollapsedSliceDims,
		"operand_batching_dims":       &g.OperandBatchingDims,
		"start_indices_batching_dims": &g.StartIndicesBatchingDims,
		"start_index_map":             &g.StartIndexMap,
	}, map[string]*int64{"index_vector_dim": &g.IndexVectorDim})
	return g
}

func (p *parser) parseScatterDims() *ScatterDims {
	s := &ScatterDims{UpdateWindowDims: []int64{}, InsertedWindowDims: []int64{}, InputBatchingDims: []int64{},
		ScatterIndicesBatchingDims: []int64{}, ScatterDimsToOperandDims: []int64{}}
	p.dimFields("#stablehlo.scatter", map[string]*[]int64{
		"update_window_dims":            &s.UpdateWindowDims,
		"inserted_window_dims":          &s.InsertedWindowDims,
		"input_batching_dims":           &s.InputBatchingDims,
		"scatter_indices_batching_dims": &s.ScatterIndicesBatchingDims,
		"scatter_dims_to_operand_dims":  &s.ScatterDimsToOperandDims,
	}, map[string]*int64{"index_vector_dim": &s.IndexVectorDim})
	return s
}

func (p *parser) parseDotDims() *DotDims {
	d := newDotDims()
	p.dimFields("#stablehlo.dot", map[string]*[]int64{
		"lhs_batching_dimensions":    &d.LhsBatchingDims,
		"rhs_batching_dimensions":    &d.RhsBatchingDims,
		"lhs_contracting_dimensions": &d.LhsContractingDims,
		"rhs_contracting_dimensions": &d.RhsContractingDims,
	}, nil)
	return d
}

func newDotDims() *DotDims {
	return &DotDims{LhsBatchingDims: []int64{}, RhsBatchingDims: []int64{}, LhsContractingDims: []int64{}, RhsContractingDims: []int64{}}
}

// parseConvRaw parses the named-field form after `raw`.
func (p *parser) parseConvRaw() *ConvDims {
	c := &ConvDims{}
	lists := map[string]*[]int64{
		"input_spatial_dimensions":  &c.InputSpatialDims,
		"kernel_spatial_dimensions": &c.KernelSpatialDims,
		"output_spatial_dimensions": &c.OutputSpatialDims,
	}
	ints := map[string]*int64{
		"input_batch_dimension":           &c.InputBatchDim,
		"input_feature_dimension":         &c.InputFeatureDim,
		"kernel_input_feature_dimension":  &c.KernelInputFeatureDim,
		"kernel_output_feature_dimension": &c.KernelOutputFeatureDim,
		"output_batch_dimension":          &c.OutputBatchDim,
		"output_feature_dimension":        &c.OutputFeatureDim,
	}
	for {
		fat := p.here()
		k := p.expectIdent("a field name")
		p.expect("=")
		if l, ok := lists[k]; ok {
			*l = p.parseIntList()
		} else if n, ok := ints[k]; ok {
			*n = p.parseInt64()
		} else {
			p.fail(fat, "unknown field %q in #stablehlo.conv", k)
		}
		if !p.accept(",") {
			break
		}
	}
	for _, l := range lists {
		if *l == nil {
			*l = []int64{}
		}
	}
	return c
}

// parseConvDims parses `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
func (p *parser) parseConvDims() *ConvDims {
	c := &ConvDims{}
	at := p.here()
	in := p.convLayout("bf")
	if p.peek() != 'x' {
		p.fail(p.pos, "expected 'x' in convolution dimension numbers")
	}
	p.pos++
	kn := p.convLayout("io")
	p.expect("->")
	out := p.convLayout("bf")
	if len(in.spatial) != len(kn.spatial) || len(in.spatial) != len(out.spatial) {
		p.fail(at, "convolution dimension numbers have different spatial ranks")
	}
	c.InputBatchDim, c.InputFeatureDim, c.InputSpatialDims = in.a, in.b, in.spatial
	c.KernelInputFeatureDim, c.KernelOutputFeatureDim, c.KernelSpatialDims = kn.a, kn.b, kn.spatial
	c.OutputBatchDim, c.OutputFeatureDim, c.OutputSpatialDims = out.a, out.b, out.spatial
	return c
}

type convLayout struct {
	a, b    int64   // position of the two letters
	spatial []int64 // position of spatial dim i
}

// convLayout parses one `[...]` of conv dimension numbers; letters are
// the two non-spatial dims (b,f for activations, i,o for the kernel).
func (p *parser) convLayout(letters string) convLayout {
	at := p.here()
	p.expect("[")
	l := convLayout{a: -1, b: -1}
	var spatialAt []int64
	var seen []bool
	for pos := int64(0); ; pos++ {
		p.ws()
		tat := p.here()
		switch {
		case p.acceptKeyword(letters[:1]):
			if l.a >= 0 {
				p.fail(tat, "duplicate '%s' in convolution dimension numbers", letters[:1])
			}
			l.a = pos
		case p.acceptKeyword(letters[1:]):
			if l.b >= 0 {
				p.fail(tat, "duplicate '%s' in convolution dimension numbers", letters[1:])
			}
			l.b = pos
		default:
			txt := p.numberText()
			n, err := strconv.Atoi(txt)
			if err != nil || n < 0 || n > 1<<16 {
				p.fail(tat, "expected '%c', '%c' or a spatial index in convolution dimension numbers", letters[0], letters[1])
			}
			for len(spatialAt) <= n {
				spatialAt = append(spatialAt, -1)
				seen = append(seen, false)
			}
			if seen[n] {
				p.fail(tat, "duplicate spatial dimension %d", n)
			}
			seen[n] = true
			spatialAt[n] = pos
		}
		if p.accept("]") {
			break
		}
		p.expect(",")
	}
	if l.a < 0 || l.b < 0 {
		p.fail(at, "convolution dimension numbers need '%c' and '%c'", letters[0], letters[1])
	}
	for i, s := range seen {
		if !s {
			p.fail(at, "spatial dimension %d missing in convolution dimension numbers", i)
		}
	}
	l.spatial = spatialAt
	if l.spatial == nil {
		l.spatial = []int64{}
	}
	return l
}
