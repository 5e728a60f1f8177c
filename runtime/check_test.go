package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/runtime"
)

// A lowering whose result differs from what the graph records for the
// node (here the record is altered, as a wrong lowering would disagree
// with a right one) fails the compile, naming the node, the op, the
// output and both types — whatever the program's Check setting.
func TestOpContractCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		alter func(m *fx.TensorMeta)
		want  string
	}{
		{"dtype", func(m *fx.TensorMeta) { m.DType = dtype.F64 }, "the graph records f64"},
		{"rank", func(m *fx.TensorMeta) { m.Shape = append(m.Shape, fx.StaticDim(1)) }, "the graph records"},
		{"size", func(m *fx.TensorMeta) { m.Shape[0] = fx.StaticDim(m.Shape[0].Static + 1) }, "dim 0 should be"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _, io := loadOracle(t, "add_alpha")
			n := p.Graph.Nodes[0]
			out := n.Outputs[0].Name
			c.alter(p.Graph.Tensors[out])
			prog, err := runtime.FromPT2(p, "cpu")
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = prog.Run(context.Background(), io.Inputs())
			if err == nil {
				t.Fatal("a result that differs from the graph's record ran")
			}
			for _, w := range []string{"op contract", n.Name, n.Target, "output 0", c.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
