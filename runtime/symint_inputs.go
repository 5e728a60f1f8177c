package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/aten"
)

// bindSymInputs gives each SymInt user input (a graph placeholder holding
// a size, as the graphs torch.compile hands a backend have: s0 beside an
// [s0, 8] tensor) its value: the expression the export recorded for it,
// evaluated with the symbols the tensor inputs bound. A size no tensor
// input determines is an error naming it.
func (r *run) bindSymInputs(names []string) error {
	g := r.p.Graph
	for _, name := range names {
		sv, ok := g.SymInts[name]
		switch {
		case !ok:
			return fmt.Errorf("symbolic int input %s has no value in the graph", name)
		case sv.Expr == nil:
			r.env[name] = aten.IntValue(sv.Int)
		default:
			v, err := sv.Expr.Eval(r.bindings)
			if err != nil {
				return fmt.Errorf("symbolic int input %s = %s is not determined by the tensor inputs: %w", name, sv.Expr, err)
			}
			r.env[name] = aten.IntValue(v)
		}
	}
	return nil
}
