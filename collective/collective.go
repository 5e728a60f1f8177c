// Package collective builds the StableHLO program of one torch.distributed
// collective: the program every rank of a group compiles and runs for a
// c10d call when each rank owns one device of a PJRT client that sees the
// whole group (a TPU slice: one process per host, the hosts' clients joined
// by the plugin's distributed runtime). The module is replicated
// (mhlo.num_replicas = the group's size, replica r = group rank r); its
// @main takes the rank's tensor and returns the rank's result, so the same
// executable serves every rank and the collective runs over the devices'
// interconnect, not through host memory.
//
// On one host the engine runs these programs across several devices of
// one process (the native backend's replicas, or XLA's CPU devices); across
// processes the tpu device's c10d backend (python/torchtpu/csrc/distributed)
// stages through host memory instead, because the plugins at hand have no
// cross-process runtime (docs/distributed.md).
package collective

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Kind is a c10d collective, named as torch.distributed names it.
type Kind string

// The collectives with a program.
const (
	AllReduce     Kind = "all_reduce"
	AllGather     Kind = "all_gather_into_tensor" // along dim 0
	ReduceScatter Kind = "reduce_scatter_tensor"  // along dim 0
	AllToAll      Kind = "all_to_all_single"      // equal splits along dim 0
	Broadcast     Kind = "broadcast"
	Permute       Kind = "permute" // send/recv pairs: rank Pairs[i][0] sends to rank Pairs[i][1]
	Barrier       Kind = "barrier"
)

// Reduction ops, as torch.distributed.ReduceOp names them.
const (
	Sum     = "SUM"
	Avg     = "AVG"
	Product = "PRODUCT"
	Min     = "MIN"
	Max     = "MAX"
)

// Call is one collective call: what every rank passes to c10d.
type Call struct {
	Kind   Kind
	Reduce string      // all_reduce, reduce_scatter_tensor: SUM (default), AVG, PRODUCT, MIN, MAX
	DType  dtype.DType // of the rank's tensor
	Shape  []int64     // of the rank's tensor
	World  int         // the group's size
	Root   int         // broadcast's source rank
	Pairs  [][2]int    // permute's (source, target) ranks
}

// normal is c with a barrier's operand: an all-reduce of one int32, which
// completes when every rank has arrived.
func (c Call) normal() Call {
	if c.Kind == Barrier {
		c.DType, c.Shape, c.Reduce = dtype.I32, nil, Sum
	}
	return c
}

// Module returns the call's program, verified.
func Module(c Call) (*stablehlo.Module, error) {
	text, err := Text(c)
	if err != nil {
		return nil, err
	}
	m, err := parse(text)
	if err != nil {
		return nil, fmt.Errorf("collective %s: %w", c.Kind, err)
	}
	return m, nil
}

// Text returns the call's program as MLIR text.
func Text(c Call) (string, error) {
	c = c.normal()
	if c.World < 1 {
		return "", fmt.Errorf("collective %s: world size %d", c.Kind, c.World)
	}
	if c.DType == dtype.Invalid {
		return "", fmt.Errorf("collective %s: no dtype", c.Kind)
	}
	in := tensorType(c.DType, c.Shape)
	groups := fmt.Sprintf("dense<[[%s]]> : tensor<1x%dxi64>", ranks(c.World), c.World)
	var body, out string
	res := "r" // the result's name
	switch c.Kind {
	case AllReduce, Barrier:
		r, err := region(c.Reduce, c.DType)
		if err != nil {
			return "", err
		}
		out = in
		body = fmt.Sprintf("    %%r = \"stablehlo.all_reduce\"(%%x) (%s) {replica_groups = %s} : (%s) -> %s\n",
			r, groups, in, in)
		if c.Reduce == Avg {
			body += average(c, "%r", out)
			res = "avg"
		}
	case AllGather:
		if len(c.Shape) == 0 {
			return "", fmt.Errorf("collective %s: a 0-d tensor has no dim 0", c.Kind)
		}
		out = tensorType(c.DType, scaled(c.Shape, int64(c.World), 1))
		body = fmt.Sprintf("    %%r = \"stablehlo.all_gather\"(%%x) {all_gather_dim = 0 : i64, replica_groups = %s} : (%s) -> %s\n",
			groups, in, out)
	case ReduceScatter:
		if len(c.Shape) == 0 || c.Shape[0]%int64(c.World) != 0 {
			return "", fmt.Errorf("collective %s: dim 0 of %v does not split in %d", c.Kind, c.Shape, c.World)
		}
		r, err := region(c.Reduce, c.DType)
		if err != nil {
			return "", err
		}
		out = tensorType(c.DType, scaled(c.Shape, 1, int64(c.World)))
		body = fmt.Sprintf("    %%r = \"stablehlo.reduce_scatter\"(%%x) (%s) {replica_groups = %s, scatter_dimension = 0 : i64} : (%s) -> %s\n",
			r, groups, in, out)
		if c.Reduce == Avg {
			body += average(c, "%r", out)
			res = "avg"
		}
	case AllToAll:
		if len(c.Shape) == 0 || c.Shape[0]%int64(c.World) != 0 {
			return "", fmt.Errorf("collective %s: dim 0 of %v does not split in %d", c.Kind, c.Shape, c.World)
		}
		out = in
		body = fmt.Sprintf("    %%r = \"stablehlo.all_to_all\"(%%x) {concat_dimension = 0 : i64, replica_groups = %s, split_count = %d : i64, split_dimension = 0 : i64} : (%s) -> %s\n",
			groups, c.World, in, out)
	case Broadcast:
		if c.Root < 0 || c.Root >= c.World {
			return "", fmt.Errorf("collective %s: root %d of %d ranks", c.Kind, c.Root, c.World)
		}
		out = in
		// The root's value: a permute from the root to every rank would
		// need one source per target, and XLA's CPU all-reduce has no
		// bitwise OR; so the others contribute zero bits to an all-reduce
		// by unsigned maximum (the raw bits: -0.0 and NaN payloads arrive
		// exactly).
		bits := dtype.DType(0)
		switch c.DType.Size() {
		case 1:
			bits = dtype.U8
		case 2:
			bits = dtype.U16
		case 4:
			bits = dtype.U32
		case 8:
			bits = dtype.U64
		default:
			return "", fmt.Errorf("collective %s: %s", c.Kind, c.DType)
		}
		bt := tensorType(bits, c.Shape)
		it := tensorType(dtype.Bool, c.Shape)
		body = "    %id = stablehlo.replica_id : tensor<ui32>\n"
		body += fmt.Sprintf("    %%root = stablehlo.constant dense<%d> : tensor<ui32>\n", c.Root)
		body += "    %is = stablehlo.compare EQ, %id, %root : (tensor<ui32>, tensor<ui32>) -> tensor<i1>\n"
		body += fmt.Sprintf("    %%mask = stablehlo.broadcast_in_dim %%is, dims = [] : (tensor<i1>) -> %s\n", it)
		body += fmt.Sprintf("    %%xb = stablehlo.bitcast_convert %%x : (%s) -> %s\n", in, bt)
		body += fmt.Sprintf("    %%zero = stablehlo.constant dense<0> : %s\n", bt)
		body += fmt.Sprintf("    %%mine = stablehlo.select %%mask, %%xb, %%zero : %s, %s\n", it, bt)
		body += fmt.Sprintf("    %%sum = \"stablehlo.all_reduce\"(%%mine) (%s) {replica_groups = %s} : (%s) -> %s\n",
			maxRegion(bits), groups, bt, bt)
		body += fmt.Sprintf("    %%r = stablehlo.bitcast_convert %%sum : (%s) -> %s\n", bt, in)
	case Permute:
		if len(c.Pairs) == 0 {
			return "", fmt.Errorf("collective %s: no pairs", c.Kind)
		}
		var ps []string
		for _, p := range c.Pairs {
			if p[0] < 0 || p[0] >= c.World || p[1] < 0 || p[1] >= c.World {
				return "", fmt.Errorf("collective %s: pair %v outside %d ranks", c.Kind, p, c.World)
			}
			ps = append(ps, fmt.Sprintf("[%d, %d]", p[0], p[1]))
		}
		out = in
		body = fmt.Sprintf("    %%r = \"stablehlo.collective_permute\"(%%x) {source_target_pairs = dense<[%s]> : tensor<%dx2xi64>} : (%s) -> %s\n",
			strings.Join(ps, ", "), len(ps), in, out)
	default:
		return "", fmt.Errorf("collective %q: no program for it", c.Kind)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "module @%s attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = %d : i32} {\n", c.Kind, c.World)
	fmt.Fprintf(&sb, "  func.func @main(%%x: %s) -> %s {\n", in, out)
	sb.WriteString(body)
	fmt.Fprintf(&sb, "    return %%%s : %s\n  }\n}\n", res, out)
	return sb.String(), nil
}

func ranks(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(i)
	}
	return strings.Join(s, ", ")
}

func scaled(shape []int64, mul, div int64) []int64 {
	out := append([]int64(nil), shape...)
	out[0] = out[0] * mul / div
	return out
}

func tensorType(d dtype.DType, shape []int64) string {
	var sb strings.Builder
	sb.WriteString("tensor<")
	for _, s := range shape {
		fmt.Fprintf(&sb, "%dx", s)
	}
	sb.WriteString(d.MLIR())
	sb.WriteString(">")
	return sb.String()
}

// region is the reduction body of op on scalars of d.
func region(op string, d dtype.DType) (string, error) {
	name := map[string]string{"": "add", Sum: "add", Avg: "add", Product: "multiply", Min: "minimum", Max: "maximum"}[op]
	if name == "" {
		return "", fmt.Errorf("collective: reduction %q: want SUM, AVG, PRODUCT, MIN or MAX", op)
	}
	if op == Avg && d.IsBool() {
		return "", fmt.Errorf("collective: AVG of %s", d)
	}
	s := tensorType(d, nil)
	return fmt.Sprintf("{\n    ^bb0(%%a: %s, %%b: %s):\n      %%s = stablehlo.%s %%a, %%b : %s\n      stablehlo.return %%s : %s\n    }",
		s, s, name, s, s), nil
}

func maxRegion(d dtype.DType) string {
	s := tensorType(d, nil)
	return fmt.Sprintf("{\n    ^bb0(%%a: %s, %%b: %s):\n      %%s = stablehlo.maximum %%a, %%b : %s\n      stablehlo.return %%s : %s\n    }",
		s, s, s, s)
}

// average divides an AVG's sum by the group's size (integers truncate,
// as stablehlo.divide does and NCCL's average does).
func average(c Call, v, t string) string {
	n := fmt.Sprint(c.World)
	if c.DType.IsFloatingOrComplex() {
		n += ".0"
	}
	return fmt.Sprintf("    %%n = stablehlo.constant dense<%s> : %s\n    %%avg = stablehlo.divide %s, %%n : %s\n", n, t, v, t)
}

func parse(text string) (*stablehlo.Module, error) {
	m, err := stablehlo.ParseModule("collective.mlir", []byte(text))
	if err != nil {
		return nil, err
	}
	return m, stablehlo.Verify(m)
}
