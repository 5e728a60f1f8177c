package stablehlo

import "github.com/torchtpu/torchtpu/dtype"

// Ops whose pretty form is `operands {attrs} : types` with no keywords.
var plainPrettyOps = []string{
	// elementwise unary
	"abs", "cbrt", "ceil", "count_leading_zeros", "cosine", "exponential", "exponential_minus_one",
	"floor", "imag", "is_finite", "log", "log_plus_one", "logistic", "negate", "not", "popcnt", "real",
	"round_nearest_afz", "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "tan", "tanh",
	// elementwise binary and ternary
	"add", "subtract", "multiply", "divide", "remainder", "power", "atan2", "maximum", "minimum",
	"and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical", "complex",
	"select", "clamp",
	// conversions and shapes
	"convert", "bitcast_convert", "reshape", "dynamic_reshape", "dynamic_update_slice",
	"real_dynamic_slice", "dynamic_pad", "uniform_quantize", "uniform_dequantize",
	// tokens, tuples, misc
	"after_all", "create_token", "optimization_barrier", "tuple", "replica_id", "partition_id",
	"return", "add_dependency",
}

func init() {
	for _, n := range plainPrettyOps {
		prettySpecs["stablehlo."+n] = &prettySpec{}
	}
	prettySpecs["func.return"] = &prettySpec{}
	prettySpecs["stablehlo.optimization_barrier"] = &prettySpec{emptyParens: true}
	i64 := func(attr string) keyConv { return keyInt(attr, nil) }
	specs := map[string]*prettySpec{
		"broadcast_in_dim": {keys: map[string]keyConv{"dims": keyI64Array("broadcast_dimensions")}},
		"dynamic_broadcast_in_dim": {keys: map[string]keyConv{
			"dims":                          keyI64Array("broadcast_dimensions"),
			"known_expanding_dimensions":    keyI64Array("known_expanding_dimensions"),
			"known_nonexpanding_dimensions": keyI64Array("known_nonexpanding_dimensions"),
		}},
		"broadcast":          {keys: map[string]keyConv{"sizes": keyI64Array("broadcast_sizes")}},
		"transpose":          {keys: map[string]keyConv{"dims": keyI64Array("permutation")}},
		"reverse":            {keys: map[string]keyConv{"dims": keyI64Array("dimensions")}},
		"iota":               {keys: map[string]keyConv{"dim": i64("iota_dimension")}},
		"dynamic_iota":       {keys: map[string]keyConv{"dim": i64("iota_dimension")}},
		"concatenate":        {keys: map[string]keyConv{"dim": i64("dimension")}},
		"get_dimension_size": {keys: map[string]keyConv{"dim": i64("dimension")}},
		"set_dimension_size": {keys: map[string]keyConv{"dim": i64("dimension")}},
		"dynamic_slice":      {keys: map[string]keyConv{"sizes": keyI64Array("slice_sizes")}},
		"pad": {keys: map[string]keyConv{
			"low":      keyI64Array("edge_padding_low"),
			"high":     keyI64Array("edge_padding_high"),
			"interior": keyI64Array("interior_padding"),
		}},
		"reduce_precision": {keys: map[string]keyConv{"format": keyFormat}},
		"fft": {keys: map[string]keyConv{
			"type":   keyEnum("fft_type", "fft_type"),
			"length": keyI64Array("fft_length"),
		}},
		"rng_bit_generator": {keys: map[string]keyConv{"algorithm": keyEnum("rng_algorithm", "rng_algorithm")}},
		"rng":               {keys: map[string]keyConv{"distribution": keyEnum("rng_distribution", "rng_distribution")}},
		"compare": {words: []wordSpec{
			{"comparison_direction", "comparison_direction"},
			{"compare_type", "comparison_type"},
		}},
		"dot":          {keys: map[string]keyConv{"precision": keyPrecision}},
		"cholesky":     {keys: map[string]keyConv{"lower": keyBool("lower")}},
		"einsum":       {keys: map[string]keyConv{"config": keyString("einsum_config")}},
		"unary_einsum": {keys: map[string]keyConv{"config": keyString("einsum_config")}},
		"dot_general": {keys: map[string]keyConv{
			"batching_dims":    nil,
			"contracting_dims": nil,
			"precision":        keyPrecision,
			"algorithm":        keyAlgorithm,
		}, finish: finishDotGeneral},
	}
	for n, s := range specs {
		prettySpecs["stablehlo."+n] = s
	}

	// The interpreter's check and interpreter dialects.
	tol := map[string]keyConv{"tolerance": keyFloat("tolerance")}
	prettySpecs["check.expect_eq"] = &prettySpec{}
	prettySpecs["check.expect_almost_eq"] = &prettySpec{keys: tol}
	prettySpecs["check.expect_eq_const"] = &prettySpec{positional: "value"}
	prettySpecs["check.expect_almost_eq_const"] = &prettySpec{positional: "value", keys: tol}
	prettySpecs["check.expect_close"] = &prettySpec{keys: map[string]keyConv{
		"max_ulp_difference": i64("max_ulp_difference"),
		"min_ulp_difference": i64("min_ulp_difference"),
	}}
	prettySpecs["check.expect_serialized_eq"] = &prettySpec{keys: map[string]keyConv{
		"probe_id": keyString("probe_id"),
		"iter":     keyInt("iteration", Elem(dtype.U32)),
	}}
	prettySpecs["interpreter.probe"] = &prettySpec{keys: map[string]keyConv{"probe_id": keyString("probe_id")}}
	prettySpecs["interpreter.print"] = &prettySpec{}

	prettyParsers["stablehlo.constant"] = parseConstantOp
	prettyParsers["func.constant"] = parseConstantOp
	prettyParsers["chlo.constant"] = parseConstantOp
	prettyParsers["arith.constant"] = parseConstantOp
	prettyParsers["stablehlo.slice"] = parseSliceOp
	prettyParsers["stablehlo.get_tuple_element"] = parseGetTupleElementOp
	prettyParsers["stablehlo.custom_call"] = parseCustomCallOp
	prettyParsers["func.call"] = parseCallOp
	prettyParsers["stablehlo.composite"] = parseCompositeOp
	prettyParsers["stablehlo.reduce"] = parseReduceOp
	prettyParsers["stablehlo.while"] = parseWhileOp
	prettyParsers["stablehlo.convolution"] = parseConvolutionOp
	prettyParsers["chlo.top_k"] = parseTopKOp
	prettyParsers["chlo.scan"] = parseScanOp
}

// keyAlgorithm converts dot_general's `algorithm = <...>`.
func keyAlgorithm(p *parser, op *Op, it prettyItem) {
	s, ok := it.value.(*StructAttr)
	if !ok {
		p.fail(it.at, "algorithm: expected <...>")
	}
	p.setAttr(op, "algorithm", &StructAttr{Name: "stablehlo.dot_algorithm", Fields: s.Fields})
}

// finishDotGeneral builds dot_dimension_numbers from
// `batching_dims = [..] x [..], contracting_dims = [..] x [..]`.
func finishDotGeneral(p *parser, op *Op, a *prettyArgs) {
	d := newDotDims()
	any := false
	for _, it := range a.items {
		if it.key != "batching_dims" && it.key != "contracting_dims" {
			if it.value2 != nil {
				p.fail(it.at, "%s: unexpected 'x'", it.key)
			}
			continue
		}
		if it.value2 == nil {
			p.fail(it.at, "%s: expected [lhs] x [rhs]", it.key)
		}
		l, r := p.asInts(it, it.value), p.asInts(it, it.value2)
		if it.key == "batching_dims" {
			d.LhsBatchingDims, d.RhsBatchingDims = l, r
		} else {
			d.LhsContractingDims, d.RhsContractingDims = l, r
		}
		any = true
	}
	if any || op.Attr("dot_dimension_numbers") == nil {
		p.setAttr(op, "dot_dimension_numbers", d)
	}
}
