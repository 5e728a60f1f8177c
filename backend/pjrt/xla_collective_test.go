//go:build cgo

package pjrt_test

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/collective"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
)

// The program of each torch.distributed collective (package collective:
// what every rank of a TPU slice compiles for one c10d call) on 4 XLA CPU
// devices, each with its own tensor: every device's result is the
// reference's.
func TestXLACPUCollectivePrograms(t *testing.T) {
	xlaCPU(t)
	ctx := context.Background()
	for _, c := range collective.Examples(4) {
		text, err := collective.Text(c)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		exe := compileOn(t, "xla-cpu", text)
		ins := collective.ExampleInputs(c)
		args := make([][]*literal.Literal, len(ins))
		for r := range ins {
			args[r] = []*literal.Literal{ins[r]}
		}
		outs, err := exe.(multiExe).RunOnDevices(ctx, args)
		if err != nil {
			t.Errorf("%v: %v", c, err)
			continue
		}
		want, err := collective.Reference(c, ins)
		if err != nil {
			t.Fatal(err)
		}
		for r := range want {
			if cmp := runtime.Compare(outs[r][0], want[r], runtime.Tolerance{}); !cmp.OK {
				t.Errorf("%v: rank %d got %v, want %v: %s", c, r, outs[r][0], want[r], cmp.Detail)
			}
		}
	}
}
