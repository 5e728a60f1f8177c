package runtime

import (
	"strings"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Dead-code elimination over a lowered segment. A node's lowering may emit
// more than the graph reads (max_pool2d_with_indices' indices when only
// getitem 0 is used); the executor would still compute them. Before a
// segment is compiled, ops of its top-level block whose results reach
// nothing (transitively, up to func.return) and which have no side effects
// are dropped.

// effectful lists ops that must stay even when their results are unused.
var effectful = map[string]bool{
	"stablehlo.custom_call": true, "stablehlo.send": true, "stablehlo.recv": true,
	"stablehlo.infeed": true, "stablehlo.outfeed": true, "stablehlo.after_all": true,
	"stablehlo.all_reduce": true, "stablehlo.all_gather": true, "stablehlo.all_to_all": true,
	"stablehlo.reduce_scatter": true, "stablehlo.collective_permute": true,
	"stablehlo.collective_broadcast": true, "stablehlo.optimization_barrier": true,
	"func.return": true, "func.call": true, "call": true,
}

func pureOp(op *stablehlo.Op) bool {
	if effectful[op.Name] || len(op.Results) == 0 {
		return false
	}
	return strings.HasPrefix(op.Name, "stablehlo.") || strings.HasPrefix(op.Name, "chlo.")
}

// eliminateDeadOps removes dead pure ops from b in place and reports how
// many it removed. Values used inside the regions of live ops (implicit
// captures) count as used.
func eliminateDeadOps(b *stablehlo.Block) int {
	used := map[*stablehlo.Value]bool{}
	var markRegions func(rs []*stablehlo.Region)
	markRegions = func(rs []*stablehlo.Region) {
		for _, r := range rs {
			for _, blk := range r.Blocks {
				for _, op := range blk.Ops {
					for _, v := range op.Operands {
						used[v] = true
					}
					markRegions(op.Regions)
				}
			}
		}
	}
	live := make([]bool, len(b.Ops))
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		keep := !pureOp(op)
		for _, r := range op.Results {
			if used[r] {
				keep = true
				break
			}
		}
		if !keep {
			continue
		}
		live[i] = true
		for _, v := range op.Operands {
			used[v] = true
		}
		markRegions(op.Regions)
	}
	kept := b.Ops[:0]
	removed := 0
	for i, op := range b.Ops {
		if live[i] {
			kept = append(kept, op)
		} else {
			removed++
		}
	}
	for i := len(kept); i < len(b.Ops); i++ {
		b.Ops[i] = nil
	}
	b.Ops = kept
	return removed
}
