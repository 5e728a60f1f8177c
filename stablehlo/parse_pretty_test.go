package stablehlo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// diffOps describes the first difference between two ops (ignoring
// locations and value names), "" when they are the same IR.
func diffOps(a, b *Op) string {
	if a.Name != b.Name {
		return fmt.Sprintf("name %s vs %s", a.Name, b.Name)
	}
	if len(a.Operands) != len(b.Operands) {
		return fmt.Sprintf("%s: %d vs %d operands", a.Name, len(a.Operands), len(b.Operands))
	}
	for i := range a.Operands {
		x, y := a.Operands[i], b.Operands[i]
		if x.Type.String() != y.Type.String() || x.Index != y.Index || (x.Def == nil) != (y.Def == nil) {
			return fmt.Sprintf("%s: operand %d differs", a.Name, i)
		}
	}
	if len(a.Results) != len(b.Results) {
		return fmt.Sprintf("%s: %d vs %d results", a.Name, len(a.Results), len(b.Results))
	}
	for i := range a.Results {
		if a.Results[i].Type.String() != b.Results[i].Type.String() {
			return fmt.Sprintf("%s: result %d type %s vs %s", a.Name, i, a.Results[i].Type, b.Results[i].Type)
		}
	}
	if !reflect.DeepEqual(a.Attrs, b.Attrs) {
		return fmt.Sprintf("%s: attrs\n%s\nvs\n%s", a.Name, dumpAttrs(a.Attrs), dumpAttrs(b.Attrs))
	}
	if len(a.Regions) != len(b.Regions) {
		return fmt.Sprintf("%s: %d vs %d regions", a.Name, len(a.Regions), len(b.Regions))
	}
	for i := range a.Regions {
		if d := diffBlocks(a.Regions[i].Blocks, b.Regions[i].Blocks); d != "" {
			return fmt.Sprintf("%s region %d: %s", a.Name, i, d)
		}
	}
	return ""
}

func diffBlocks(a, b []*Block) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d vs %d blocks", len(a), len(b))
	}
	for i := range a {
		if len(a[i].Args) != len(b[i].Args) {
			return fmt.Sprintf("block %d: %d vs %d args", i, len(a[i].Args), len(b[i].Args))
		}
		for k := range a[i].Args {
			if a[i].Args[k].Type.String() != b[i].Args[k].Type.String() || a[i].Args[k].Index != b[i].Args[k].Index {
				return fmt.Sprintf("block %d: arg %d differs", i, k)
			}
		}
		if len(a[i].Ops) != len(b[i].Ops) {
			return fmt.Sprintf("block %d: %d vs %d ops", i, len(a[i].Ops), len(b[i].Ops))
		}
		for k := range a[i].Ops {
			if d := diffOps(a[i].Ops[k], b[i].Ops[k]); d != "" {
				return d
			}
		}
	}
	return ""
}

func dumpAttrs(as []NamedAttr) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "  %s = %#v\n", a.Name, a.Value)
	}
	return b.String()
}

// mainOps parses src and returns the ops of its first function.
func mainOps(t *testing.T, src string) []*Op {
	t.Helper()
	m, err := ParseModule("test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m.Funcs[0].Body.Entry().Ops
}

// prettyGeneric pairs the custom form of an op with its generic form.
var prettyGeneric = []struct {
	args, pretty, generic string
}{
	{"%a: tensor<2xf32>, %b: tensor<2xf32>",
		`%0 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>`,
		`%0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>`},
	{"%a: tensor<2xf32>, %b: tensor<2xf32>",
		`%0 = stablehlo.add %a, %b : tensor<2xf32>`,
		`%0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>`},
	{"%a: tensor<3xf32>",
		`%0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>`,
		`%0 = "stablehlo.broadcast_in_dim"(%a) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>`},
	{"%a: tensor<8x2x3xf32>, %b: tensor<8x3x4xf32>",
		`%0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, DEFAULT] : (tensor<8x2x3xf32>, tensor<8x3x4xf32>) -> tensor<8x2x4xf32>`,
		`%0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]} : (tensor<8x2x3xf32>, tensor<8x3x4xf32>) -> tensor<8x2x4xf32>`},
	{"%a: tensor<2x3xf32>, %b: tensor<3x4xf32>",
		`%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>`,
		`%0 = "stablehlo.dot_general"(%a, %b) {algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>`},
	{"%x: tensor<4x3x9x10xf32>, %w: tensor<3x3x4x5xf32>",
		`%0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 3], pad = [[1, 0], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 2], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x3x9x10xf32>, tensor<3x3x4x5xf32>) -> tensor<4x3x4x2xf32>`,
		`%0 = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2, 3]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 2]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 2>, window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 3>} : (tensor<4x3x9x10xf32>, tensor<3x3x4x5xf32>) -> tensor<4x3x4x2xf32>`},
	{"%x: tensor<2x3xf32>, %z: tensor<f32>",
		`%0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>`,
		`%0 = "stablehlo.reduce"(%x, %z) <{dimensions = array<i64: 1>}> ({
		^bb0(%p: tensor<f32>, %q: tensor<f32>):
		  %s = stablehlo.add %p, %q : tensor<f32>
		  stablehlo.return %s : tensor<f32>
		}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>`},
	{"%x: tensor<2x3xf32>, %i: tensor<2x3xi64>, %z: tensor<f32>, %zi: tensor<i64>",
		`%0:2 = stablehlo.reduce(%x init: %z), (%i init: %zi) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<f32>, tensor<i64>) -> (tensor<2xf32>, tensor<2xi64>)
		 reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i64>, %d: tensor<i64>) {
		  %m = stablehlo.maximum %a, %c : tensor<f32>
		  %n = stablehlo.maximum %b, %d : tensor<i64>
		  stablehlo.return %m, %n : tensor<f32>, tensor<i64>
		}`,
		`%0:2 = "stablehlo.reduce"(%x, %i, %z, %zi) ({
		^bb0(%a: tensor<f32>, %b: tensor<i64>, %c: tensor<f32>, %d: tensor<i64>):
		  %m = stablehlo.maximum %a, %c : tensor<f32>
		  %n = stablehlo.maximum %b, %d : tensor<i64>
		  stablehlo.return %m, %n : tensor<f32>, tensor<i64>
		}) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<f32>, tensor<i64>) -> (tensor<2xf32>, tensor<2xi64>)`},
	{"%i: tensor<i64>, %s: tensor<i64>",
		`%0:2 = stablehlo.while(%a = %i, %b = %s) : tensor<i64>, tensor<i64>
		cond {
		  %c = stablehlo.compare LT, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
		  stablehlo.return %c : tensor<i1>
		} do {
		  %n = stablehlo.add %a, %b : tensor<i64>
		  stablehlo.return %n, %b : tensor<i64>, tensor<i64>
		}`,
		`%0:2 = "stablehlo.while"(%i, %s) ({
		^bb0(%a: tensor<i64>, %b: tensor<i64>):
		  %c = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
		  "stablehlo.return"(%c) : (tensor<i1>) -> ()
		}, {
		^bb0(%a: tensor<i64>, %b: tensor<i64>):
		  %n = stablehlo.add %a, %b : tensor<i64>
		  stablehlo.return %n, %b : tensor<i64>, tensor<i64>
		}) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)`},
	{"%a: tensor<3x8xf32>",
		`%0 = stablehlo.slice %a [1:3, 4:8:2] : (tensor<3x8xf32>) -> tensor<2x2xf32>`,
		`%0 = "stablehlo.slice"(%a) {start_indices = array<i64: 1, 4>, limit_indices = array<i64: 3, 8>, strides = array<i64: 1, 2>} : (tensor<3x8xf32>) -> tensor<2x2xf32>`},
	{"%a: tensor<2x3xi32>, %v: tensor<i32>",
		`%0 = stablehlo.pad %a, %v, low = [0, 1], high = [2, 1], interior = [1, 2] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>`,
		`%0 = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 0, 1>, edge_padding_high = array<i64: 2, 1>, interior_padding = array<i64: 1, 2>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>`},
	{"",
		`%0 = stablehlo.iota dim = 1 : tensor<4x5xi32>`,
		`%0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4x5xi32>`},
	{"%a: tensor<2xi64>, %b: tensor<2xi64>",
		`%0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>`,
		`%0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>`},
	{"%a: tensor<2x3xf32>",
		`%0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>`,
		`%0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>`},
	{"%a: tensor<3x2xi32>",
		`%0 = stablehlo.reverse %a, dims = [0] : tensor<3x2xi32>`,
		`%0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<3x2xi32>) -> tensor<3x2xi32>`},
	{"%a: tensor<8x4xi32>, %i: tensor<i64>, %j: tensor<i64>",
		`%0 = stablehlo.dynamic_slice %a, %i, %j, sizes = [1, 4] : (tensor<8x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>`,
		`%0 = "stablehlo.dynamic_slice"(%a, %i, %j) {slice_sizes = array<i64: 1, 4>} : (tensor<8x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>`},
	{"%t: tuple<tensor<2xf64>, tensor<i64>>",
		`%0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf64>, tensor<i64>>) -> tensor<i64>`,
		`%0 = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : (tuple<tensor<2xf64>, tensor<i64>>) -> tensor<i64>`},
	{"%a: tensor<2xf32>, %b: tensor<2xf32>",
		`stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()`,
		`"stablehlo.custom_call"(%a, %b) {call_target_name = "check.expect_close", has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()`},
	{"%a: tensor<2xf32>",
		`%0 = call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>`,
		`%0 = "func.call"(%a) {callee = @f} : (tensor<2xf32>) -> tensor<2xf32>`},
	{"%a: tensor<3x4xf32>",
		`%0 = stablehlo.reduce_precision %a, format = e8m7 : tensor<3x4xf32>`,
		`%0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 8 : i32, mantissa_bits = 7 : i32} : (tensor<3x4xf32>) -> tensor<3x4xf32>`},
	{"%a: tensor<4x17xcomplex<f32>>",
		`%0 = stablehlo.fft %a, type =  IRFFT, length = [32] : (tensor<4x17xcomplex<f32>>) -> tensor<4x32xf32>`,
		`%0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type IRFFT>, fft_length = array<i64: 32>} : (tensor<4x17xcomplex<f32>>) -> tensor<4x32xf32>`},
	{"%s: tensor<2xui64>",
		`%0, %1 = stablehlo.rng_bit_generator %s, algorithm =  THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)`,
		`%0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)`},
	{"%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf32>",
		`%0 = stablehlo.select %p, %a, %b : tensor<i1>, tensor<2xf32>`,
		`%0 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>`},
	{"",
		`%0 = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xf32>`,
		`%0 = "stablehlo.constant"() <{value = dense<[1.5, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>`},
	{"%a: tensor<4x?xf32>",
		`%0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<4x?xf32>) -> tensor<i32>`,
		`%0 = "stablehlo.get_dimension_size"(%a) {dimension = 1 : i64} : (tensor<4x?xf32>) -> tensor<i32>`},
	{"%a: tensor<i64>",
		`%0 = stablehlo.composite "my.op" %a {composite_attributes = {n = 2 : i64}, decomposition = @impl} : (tensor<i64>) -> tensor<i64>`,
		`%0 = "stablehlo.composite"(%a) {composite_attributes = {n = 2 : i64}, decomposition = @impl, name = "my.op"} : (tensor<i64>) -> tensor<i64>`},
	{"%a: tensor<5x3xf32>",
		`%v, %i = chlo.top_k(%a, k = 2) : tensor<5x3xf32> -> (tensor<5x2xf32>, tensor<5x2xi32>)`,
		`%v:2 = "chlo.top_k"(%a) {k = 2 : i64} : (tensor<5x3xf32>) -> (tensor<5x2xf32>, tensor<5x2xi32>)`},
	{"%a: tensor<2xi64>",
		`check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi64>`,
		`"check.expect_eq_const"(%a) {value = dense<[1, 2]> : tensor<2xi64>} : (tensor<2xi64>) -> ()`},
	{"%a: tensor<f16>, %b: tensor<f16>",
		`check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>`,
		`"check.expect_close"(%a, %b) {max_ulp_difference = 3 : i64} : (tensor<f16>, tensor<f16>) -> ()`},
	{"%a: tensor<2xf32>, %b: tensor<2xf32>",
		`%0 = chlo.next_after %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>`,
		`%0 = "chlo.next_after"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>`},
	{"%a: tensor<f32>, %b: tensor<f32>",
		`%0, %1 = stablehlo.optimization_barrier %a, %b : tensor<f32>, tensor<f32>`,
		`%0:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)`},
	{"",
		`stablehlo.optimization_barrier()`,
		`"stablehlo.optimization_barrier"() : () -> ()`},
	{"",
		`%0 = stablehlo.tuple  : tuple<>`,
		`%0 = "stablehlo.tuple"() : () -> tuple<>`},
	{"%a: tensor<4xf32>, %b: tensor<i32>",
		`%0 = stablehlo.set_dimension_size %a, %b, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>`,
		`%0 = "stablehlo.set_dimension_size"(%a, %b) {dimension = 0 : i64} : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.type_extensions<bounds = [4]>>`},
	{"%a: tensor<3xi32>",
		`%0 = stablehlo.broadcast %a, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>`,
		`%0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 1, 2>} : (tensor<3xi32>) -> tensor<1x2x3xi32>`},
	{"%a: tensor<2x2xf32>",
		`%0 = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>`,
		`%0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>`},
	{"%a: tensor<8x16xf32>, %b: tensor<16x8xf32>",
		`%0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>`,
		`%0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>`},
	{"%a: tensor<f32>, %b: tensor<f32>, %s: tensor<2xi64>",
		`%0 = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>`,
		`%0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>`},
	{"%a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
		`%0 = stablehlo.dot %a, %b, precision = [DEFAULT, HIGH] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>`,
		`%0 = "stablehlo.dot"(%a, %b) {precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGH>]} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>`},
	{"%a: tensor<2xf32>",
		`%0 = stablehlo.cosine %a {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>`,
		`%0 = "stablehlo.cosine"(%a) {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<2xf32>) -> tensor<2xf32>`},
	{"%a: tensor<2xf64>, %b: tensor<i64>",
		`%0 = stablehlo.tuple %a, %b : tuple<tensor<2xf64>, tensor<i64>>`,
		`%0 = "stablehlo.tuple"(%a, %b) : (tensor<2xf64>, tensor<i64>) -> tuple<tensor<2xf64>, tensor<i64>>`},
}

// TestPrettyEqualsGeneric checks that each custom form parses to exactly
// the IR of its generic form.
func TestPrettyEqualsGeneric(t *testing.T) {
	for _, c := range prettyGeneric {
		wrap := func(body string) string {
			return "func.func @main(" + c.args + ") {\n" + body + "\n  func.return\n}\n"
		}
		a := mainOps(t, wrap(c.pretty))
		b := mainOps(t, wrap(c.generic))
		if d := diffOps(a[0], b[0]); d != "" {
			t.Errorf("%s\npretty and generic differ: %s", c.pretty, d)
		}
	}
}
