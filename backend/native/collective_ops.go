package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Collective kernels: all_reduce, all_gather, all_to_all, reduce_scatter,
// collective_permute, collective_broadcast and collective_reduce, plus
// replica_id and partition_id.

func init() {
	register("stablehlo.replica_id", func(env Env, _ *stablehlo.Op, _ []Value) ([]Value, error) {
		return []Value{u32Scalar(uint32(env.Replica()))}, nil
	})
	register("stablehlo.partition_id", func(env Env, _ *stablehlo.Op, _ []Value) ([]Value, error) {
		return []Value{u32Scalar(uint32(env.Partition()))}, nil
	})
	register("stablehlo.all_reduce", evalAllReduce)
	register("stablehlo.collective_reduce", evalCollectiveReduce)
	register("stablehlo.reduce_scatter", evalReduceScatter)
	register("stablehlo.all_gather", evalAllGather)
	register("stablehlo.all_to_all", evalAllToAll)
	register("stablehlo.collective_permute", evalCollectivePermute)
	register("stablehlo.collective_broadcast", evalCollectiveBroadcast)
}

func u32Scalar(v uint32) *literal.Literal {
	l := &literal.Literal{DType: dtype.U32, Shape: []int64{}, Data: make([]byte, 4)}
	l.SetInt64(0, int64(v))
	return l
}

func chKey(op *stablehlo.Op) string { return fmt.Sprintf("ch%d", channelID(op)) }

// reduceMembers folds the members' operands element by element with the
// op's computation, in group order.
func reduceMembers(env Env, op *stablehlo.Op, members [][]*literal.Literal) ([]*literal.Literal, error) {
	comp, err := regionArg(op, 0)
	if err != nil {
		return nil, err
	}
	n := len(members[0])
	out := make([]*literal.Literal, n)
	for j := 0; j < n; j++ {
		for m := range members {
			if !shapeEq(members[m][j].Shape, members[0][j].Shape) {
				return nil, fmt.Errorf("operand #%d has shape %v on one process and %v on another", j, members[m][j].Shape, members[0][j].Shape)
			}
		}
		out[j] = members[0][j].Clone()
	}
	if len(members) == 1 {
		return out, nil
	}
	// The computation takes all operands at once (2n arguments) or, for
	// a variadic op with a binary computation, is applied to each operand.
	joint := true
	if b := comp.Entry(); b != nil && n > 1 && len(b.Args) == 2 {
		joint = false
	}
	if joint {
		for e := 0; e < out[0].Len(); e++ {
			if err := foldElement(env, comp, members, out, 0, n, e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for j := 0; j < n; j++ {
		for e := 0; e < out[j].Len(); e++ {
			if err := foldElement(env, comp, members, out, j, j+1, e); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// foldElement reduces element e of operands lo..hi over the members.
func foldElement(env Env, comp *stablehlo.Region, members [][]*literal.Literal, out []*literal.Literal, lo, hi, e int) error {
	n := hi - lo
	args := make([]Value, 2*n)
	for j := 0; j < n; j++ {
		args[j] = elemAsScalar(out[lo+j], e)
	}
	for m := 1; m < len(members); m++ {
		for j := 0; j < n; j++ {
			if e >= members[m][lo+j].Len() {
				return fmt.Errorf("operand #%d differs in size between processes", lo+j)
			}
			args[n+j] = elemAsScalar(members[m][lo+j], e)
		}
		r, err := env.CallRegion(comp, args)
		if err != nil {
			return err
		}
		if len(r) != n {
			return fmt.Errorf("computation returned %d values, want %d", len(r), n)
		}
		copy(args, r)
	}
	for j := 0; j < n; j++ {
		s, err := valueTensor(args[j], "computation result")
		if err != nil {
			return err
		}
		if s.DType != out[lo+j].DType || s.Len() != 1 {
			return fmt.Errorf("computation returned %v, want a %v scalar", s, out[lo+j].DType)
		}
		sz := s.DType.Size()
		copy(out[lo+j].Data[e*sz:(e+1)*sz], s.Data)
	}
	return nil
}

func evalAllReduce(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	g, _, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	res, err := reduceMembers(env, op, members)
	if err != nil {
		return nil, err
	}
	return toValues(res), nil
}

// evalCollectiveReduce reduces onto the first member of each group; the
// other members get zeros.
func evalCollectiveReduce(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	g, idx, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	if idx != 0 {
		out := make([]Value, len(ls))
		for i, l := range ls {
			out[i] = zerosLike(l)
		}
		return out, nil
	}
	res, err := reduceMembers(env, op, members)
	if err != nil {
		return nil, err
	}
	return toValues(res), nil
}

func toValues(ls []*literal.Literal) []Value {
	out := make([]Value, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

func evalReduceScatter(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	dim, ok := op.Int("scatter_dimension")
	if !ok {
		return nil, fmt.Errorf("missing scatter_dimension")
	}
	g, idx, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	red, err := reduceMembers(env, op, members)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(red))
	for i, r := range red {
		parts, err := splitAlong(r, int(dim), len(g))
		if err != nil {
			return nil, err
		}
		out[i] = parts[idx]
	}
	return out, nil
}

func evalAllGather(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	dim, ok := op.Int("all_gather_dim")
	if !ok {
		return nil, fmt.Errorf("missing all_gather_dim")
	}
	g, _, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(ls))
	for j := range ls {
		parts := make([]*literal.Literal, len(members))
		for m := range members {
			parts[m] = members[m][j]
		}
		c, err := concatAlong(parts, int(dim))
		if err != nil {
			return nil, err
		}
		out[j] = c
	}
	return out, nil
}

func evalAllToAll(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	sd, ok1 := op.Int("split_dimension")
	cd, ok2 := op.Int("concat_dimension")
	sc, ok3 := op.Int("split_count")
	if !ok1 || !ok2 || !ok3 || sc <= 0 {
		return nil, fmt.Errorf("need split_dimension, concat_dimension and a positive split_count")
	}
	g, idx, err := groupOf(env, op, permuteMode(op))
	if err != nil {
		return nil, err
	}
	if int64(len(g)) != sc {
		return nil, fmt.Errorf("group of %d processes for split_count %d", len(g), sc)
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(ls))
	for j := range ls {
		parts := make([]*literal.Literal, len(members))
		for m := range members {
			split, err := splitAlong(members[m][j], int(sd), int(sc))
			if err != nil {
				return nil, err
			}
			parts[m] = split[idx]
		}
		c, err := concatAlong(parts, int(cd))
		if err != nil {
			return nil, err
		}
		out[j] = c
	}
	return out, nil
}

// domain is every process that may take part in a permute-like op: the
// processes sharing this one's partition (cross_replica) or replica.
func domain(env Env, mode groupMode) []int {
	R, P := env.NumReplicas(), env.NumPartitions()
	var d []int
	if mode == crossPartition {
		for p := 0; p < P; p++ {
			d = append(d, env.Replica()*P+p)
		}
		return d
	}
	for r := 0; r < R; r++ {
		d = append(d, r*P+env.Partition())
	}
	return d
}

func evalCollectivePermute(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	pairs, _, err := groupsAttr(op, "source_target_pairs")
	if err != nil {
		return nil, err
	}
	mode := permuteMode(op)
	dom := domain(env, mode)
	members, err := exchangeTensors(env, op, chKey(op), dom, ls)
	if err != nil {
		return nil, err
	}
	// Position in the domain is the replica (or partition) id.
	me := env.Replica()
	if mode == crossPartition {
		me = env.Partition()
	}
	out := make([]Value, len(ls))
	for j, l := range ls {
		out[j] = zerosLike(l)
	}
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("source_target_pairs rows must have 2 entries, got %v", p)
		}
		if p[1] == int64(me) {
			if p[0] < 0 || p[0] >= int64(len(dom)) {
				return nil, fmt.Errorf("source %d out of range", p[0])
			}
			for j := range ls {
				out[j] = members[p[0]][j]
			}
		}
	}
	return out, nil
}

func evalCollectiveBroadcast(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	var roots []int64
	if dyn, _ := op.Bool("has_dynamic_root"); dyn {
		// The last operand holds, per result, the index of its source in
		// the group.
		if len(ls) < 2 {
			return nil, fmt.Errorf("has_dynamic_root needs data operands and a root operand")
		}
		r := ls[len(ls)-1]
		ls = ls[:len(ls)-1]
		if r.Len() != len(ls) || r.DType.IsFloat() || r.DType.IsComplex() {
			return nil, fmt.Errorf("root operand %v must hold one integer per result (%d)", r, len(ls))
		}
		for i := 0; i < r.Len(); i++ {
			roots = append(roots, r.Int64(i))
		}
	}
	rows, _, err := groupsAttr(op, "replica_groups")
	if err != nil {
		return nil, err
	}
	groups, err := processGroups(env, permuteMode(op), rows)
	if err != nil {
		return nil, err
	}
	g, _ := myGroup(env, groups)
	if g == nil {
		out := make([]Value, len(ls))
		for j, l := range ls {
			out[j] = zerosLike(l)
		}
		return out, nil
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(ls))
	for j := range ls {
		src := int64(0)
		if roots != nil {
			src = roots[j]
		}
		if src < 0 || src >= int64(len(g)) {
			return nil, fmt.Errorf("root %d out of range for a group of %d", src, len(g))
		}
		out[j] = members[src][j]
	}
	return out, nil
}
