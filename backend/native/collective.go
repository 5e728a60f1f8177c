package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Process groups of the collective ops, per the spec's cross_replica,
// cross_partition, cross_replica_and_partition and flattened_ids.

// channelID reads channel_handle's handle (0 when absent).
func channelID(op *stablehlo.Op) int64 {
	var fields []stablehlo.NamedAttr
	switch a := op.Attr("channel_handle").(type) {
	case *stablehlo.StructAttr:
		fields = a.Fields
	case stablehlo.DictAttr:
		fields = a
	}
	for _, f := range fields {
		if f.Name == "handle" {
			if i, ok := f.Value.(*stablehlo.IntAttr); ok {
				return i.Value
			}
		}
	}
	if i, ok := op.Int("channel_id"); ok {
		return i
	}
	return 0
}

// groupsAttr reads a 2-D integer attribute (replica_groups,
// source_target_pairs) as rows, dropping -1 padding. ok is false when the
// attribute is absent.
func groupsAttr(op *stablehlo.Op, name string) (rows [][]int64, ok bool, err error) {
	a := op.Attr(name)
	if a == nil {
		return nil, false, nil
	}
	vals, isInts := stablehlo.AttrInts(a)
	if !isInts {
		return nil, true, fmt.Errorf("%s must be a 2-D integer tensor, got %T", name, a)
	}
	cols := int64(len(vals))
	if d, isDense := a.(*stablehlo.DenseAttr); isDense && d.Type != nil {
		switch len(d.Type.Shape) {
		case 2:
			cols = d.Type.Shape[1]
		case 1:
		default:
			return nil, true, fmt.Errorf("%s has shape %v, want 2-D", name, d.Type.Shape)
		}
	}
	if cols == 0 {
		return nil, true, nil
	}
	for i := int64(0); i+cols <= int64(len(vals)); i += cols {
		var row []int64
		for _, v := range vals[i : i+cols] {
			if v >= 0 {
				row = append(row, v)
			}
		}
		rows = append(rows, row)
	}
	return rows, true, nil
}

// groupMode names how replica_groups map to process ids.
type groupMode int

const (
	crossReplica groupMode = iota
	crossPartition
	crossReplicaAndPartition
	flattenedIDs
)

// processGroups expands groups of replica/partition/flattened ids into
// groups of process ids. Empty groups mean one group of everything.
func processGroups(env Env, mode groupMode, groups [][]int64) ([][]int, error) {
	R, P := env.NumReplicas(), env.NumPartitions()
	if len(groups) == 0 {
		n := R
		switch mode {
		case crossPartition:
			n = P
		case flattenedIDs:
			n = R * P
		}
		all := make([]int64, n)
		for i := range all {
			all[i] = int64(i)
		}
		groups = [][]int64{all}
	}
	check := func(v int64, n int, what string) error {
		if v < 0 || v >= int64(n) {
			return fmt.Errorf("%s %d out of range [0, %d)", what, v, n)
		}
		return nil
	}
	var out [][]int
	for _, g := range groups {
		switch mode {
		case crossReplica:
			for p := 0; p < P; p++ {
				var pg []int
				for _, r := range g {
					if err := check(r, R, "replica id"); err != nil {
						return nil, err
					}
					pg = append(pg, int(r)*P+p)
				}
				out = append(out, pg)
			}
		case crossPartition:
			for r := 0; r < R; r++ {
				var pg []int
				for _, p := range g {
					if err := check(p, P, "partition id"); err != nil {
						return nil, err
					}
					pg = append(pg, r*P+int(p))
				}
				out = append(out, pg)
			}
		case crossReplicaAndPartition:
			var pg []int
			for p := 0; p < P; p++ {
				for _, r := range g {
					if err := check(r, R, "replica id"); err != nil {
						return nil, err
					}
					pg = append(pg, int(r)*P+p)
				}
			}
			out = append(out, pg)
		case flattenedIDs:
			var pg []int
			for _, id := range g {
				if err := check(id, R*P, "process id"); err != nil {
					return nil, err
				}
				pg = append(pg, int(id))
			}
			out = append(out, pg)
		}
	}
	return out, nil
}

// myGroup returns the group holding this process and its index in it
// (nil when none does).
func myGroup(env Env, groups [][]int) ([]int, int) {
	me := env.Replica()*env.NumPartitions() + env.Partition()
	for _, g := range groups {
		for i, id := range g {
			if id == me {
				return g, i
			}
		}
	}
	return nil, -1
}

// reductionMode picks the grouping of all_reduce, all_gather and
// reduce_scatter.
func reductionMode(op *stablehlo.Op) groupMode {
	global, _ := op.Bool("use_global_device_ids")
	switch {
	case channelID(op) <= 0:
		return crossReplica
	case global:
		return flattenedIDs
	}
	return crossReplicaAndPartition
}

// permuteMode is the grouping of all_to_all, collective_permute and
// collective_broadcast.
func permuteMode(op *stablehlo.Op) groupMode {
	if channelID(op) > 0 {
		return crossPartition
	}
	return crossReplica
}

// groupOf computes this process's group for op.
func groupOf(env Env, op *stablehlo.Op, mode groupMode) ([]int, int, error) {
	rows, _, err := groupsAttr(op, "replica_groups")
	if err != nil {
		return nil, 0, err
	}
	groups, err := processGroups(env, mode, rows)
	if err != nil {
		return nil, 0, err
	}
	g, i := myGroup(env, groups)
	if g == nil {
		return nil, 0, fmt.Errorf("process (replica %d, partition %d) is in no replica group", env.Replica(), env.Partition())
	}
	return g, i, nil
}

// tensors checks that every operand is a tensor.
func tensors(op *stablehlo.Op, in []Value) ([]*literal.Literal, error) {
	out := make([]*literal.Literal, len(in))
	for i := range in {
		l, err := tensorArg(op, in, i)
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

// exchangeTensors sends this process's tensors to its group and returns
// every member's tensors, in group order.
func exchangeTensors(env Env, op *stablehlo.Op, key string, group []int, ls []*literal.Literal) ([][]*literal.Literal, error) {
	vs := make(Tuple, len(ls))
	for i, l := range ls {
		vs[i] = l
	}
	got, err := env.Collective(op, key, group, vs)
	if err != nil {
		return nil, err
	}
	out := make([][]*literal.Literal, len(got))
	for m, v := range got {
		t, ok := v.(Tuple)
		if !ok || len(t) != len(ls) {
			return nil, fmt.Errorf("group member %d sent %d values, want %d", group[m], len(t), len(ls))
		}
		out[m] = make([]*literal.Literal, len(t))
		for i, e := range t {
			l, ok := e.(*literal.Literal)
			if !ok || l.DType != ls[i].DType {
				return nil, fmt.Errorf("group member %d sent a mismatched operand #%d", group[m], i)
			}
			out[m][i] = l
		}
	}
	return out, nil
}

// zerosLike returns a zero tensor of l's type.
func zerosLike(l *literal.Literal) *literal.Literal {
	z, _ := literal.New(l.DType, l.Shape)
	return z
}
