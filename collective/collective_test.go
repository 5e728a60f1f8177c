package collective

import (
	"context"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	_ "github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/runtime"
)

const golden = `module @all_reduce attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
`

func TestGolden(t *testing.T) {
	got, err := Text(Call{Kind: AllReduce, DType: dtype.F32, Shape: []int64{4}, World: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got != golden {
		t.Errorf("all_reduce program:\n%s\nwant:\n%s", got, golden)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []Call{
		{Kind: AllReduce, Reduce: "PREMUL_SUM", DType: dtype.F32, Shape: []int64{2}, World: 2},
		{Kind: ReduceScatter, DType: dtype.F32, Shape: []int64{3}, World: 2},
		{Kind: Broadcast, DType: dtype.F32, Shape: []int64{3}, World: 2, Root: 2},
		{Kind: Permute, DType: dtype.F32, Shape: []int64{3}, World: 2, Pairs: [][2]int{{0, 5}}},
		{Kind: "scatter", DType: dtype.F32, World: 2},
		{Kind: AllReduce, DType: dtype.F32, World: 0},
	} {
		if _, err := Module(c); err == nil {
			t.Errorf("%v: no error", c)
		}
	}
}

// withRank makes rank r's input x + r inside the program, so that the
// native backend (which gives every replica the same arguments and returns
// replica 0's results) sees different tensors on different ranks.
func withRank(c Call, text string) string {
	c = c.normal()
	t := tensorType(c.DType, c.Shape)
	s := tensorType(c.DType, nil)
	prelude := "    %rid = stablehlo.replica_id : tensor<ui32>\n" +
		"    %ridc = stablehlo.convert %rid : (tensor<ui32>) -> " + s + "\n" +
		"    %ridb = stablehlo.broadcast_in_dim %ridc, dims = [] : (" + s + ") -> " + t + "\n" +
		"    %x = stablehlo.add %x0, %ridb : " + t + "\n"
	head := "func.func @main(%x: " + t + ")"
	i := strings.Index(text, head)
	j := i + strings.Index(text[i:], "\n") + 1
	return text[:i] + "func.func @main(%x0: " + t + ")" + text[i+len(head):j] + prelude + text[j:]
}

// Every call's program on the native backend's 4 replicas: replica 0's
// result is the reference's.
func TestNative(t *testing.T) {
	b, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range Examples(4) {
		text, err := Text(c)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		m, err := parse(withRank(c, text))
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		exe, err := b.Compile(ctx, m, backend.Options{})
		if err != nil {
			t.Fatalf("%v: compile: %v", c, err)
		}
		ins := ExampleInputs(c)
		got, err := exe.Run(ctx, ins[:1])
		if err != nil {
			t.Fatalf("%v: run: %v", c, err)
		}
		want, err := Reference(c, ins)
		if err != nil {
			t.Fatal(err)
		}
		if cmp := runtime.Compare(got[0], want[0], runtime.Tolerance{}); !cmp.OK {
			t.Errorf("%v: rank 0 got %v, want %v: %s", c, got[0], want[0], cmp.Detail)
		}
	}
}
