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
