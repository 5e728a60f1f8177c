//go:build cgo

package pjrt_test

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Each replica adds its replica id to x, then all-reduce, all-gather,
// reduce-scatter and collective-permute run across the 4 replicas.
const replicatedModule = `module @rep attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<16xf32>, tensor<1xf32>, tensor<4xf32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %rf = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %rf, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %y = stablehlo.add %x, %b : tensor<4xf32>
    %ar = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %s = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %ag = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<16xf32>
    %rs = "stablehlo.reduce_scatter"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %s = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<1xf32>
    %cp = "stablehlo.collective_permute"(%y) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %ar, %ag, %rs, %cp : tensor<4xf32>, tensor<16xf32>, tensor<1xf32>, tensor<4xf32>
  }
}`

// A matmul whose left operand and result are split by rows over 4
// partitions: XLA's SPMD partitioner splits it.
const shardedModule = `module @sharded attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @main(%a: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}, %b: tensor<16x8xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}`

type multiExe interface {
	RunOnDevices(ctx context.Context, args [][]*literal.Literal) ([][]*literal.Literal, error)
}

func compileOn(t testing.TB, dev, src string) backend.Executable {
	t.Helper()
	m, err := stablehlo.ParseModule("multi.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatalf("compile on %s: %v", dev, err)
	}
	return exe
}

func ramp(shape []int64, scale float64) *literal.Literal {
	l, _ := literal.New(dtype.F32, shape)
	for i := 0; i < l.Len(); i++ {
		l.SetFloat64(i, float64(i%13)*scale-1)
	}
	return l
}

// The replicated program on 4 XLA CPU devices matches the native
// backend's 4-replica run (replica 0's results, as native returns), and
// every replica's all-reduce agrees.
func TestXLACPUReplicatedCollectives(t *testing.T) {
	xlaCPU(t)
	ctx := context.Background()
	x := ramp([]int64{4}, 0.5)
	want, err := compileOn(t, "cpu", replicatedModule).Run(ctx, []*literal.Literal{x})
	if err != nil {
		t.Fatal(err)
	}
	exe := compileOn(t, "xla-cpu", replicatedModule)
	got, err := exe.Run(ctx, []*literal.Literal{x})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"all_reduce", "all_gather", "reduce_scatter", "collective_permute"}
	for i := range want {
		if c := runtime.Compare(got[i], want[i], runtime.DefaultTolerance(dtype.F32)); !c.OK {
			t.Errorf("%s: xla-cpu %v, native %v: %s", names[i], got[i], want[i], c.Detail)
		}
	}
	all, err := exe.(multiExe).RunOnDevices(ctx, [][]*literal.Literal{{x}, {x}, {x}, {x}})
	if err != nil {
		t.Fatal(err)
	}
	for d := 1; d < 4; d++ {
		if c := runtime.Compare(all[d][0], want[0], runtime.DefaultTolerance(dtype.F32)); !c.OK {
			t.Errorf("replica %d all_reduce: %s", d, c.Detail)
		}
	}
}

// The row-sharded matmul compiles through XLA's SPMD partitioner and runs
// on 4 devices; the shards put together are the native backend's product.
func TestXLACPUShardedMatmul(t *testing.T) {
	xlaCPU(t)
	ctx := context.Background()
	a, b := ramp([]int64{8, 16}, 0.25), ramp([]int64{16, 8}, 0.125)
	want, err := compileOn(t, "cpu", shardedModule).Run(ctx, []*literal.Literal{a, b})
	if err != nil {
		t.Fatal(err)
	}
	exe := compileOn(t, "xla-cpu", shardedModule)
	args := make([][]*literal.Literal, 4)
	for d := range args {
		shard, _ := literal.New(dtype.F32, []int64{2, 16})
		copy(shard.Data, a.Data[d*2*16*4:(d+1)*2*16*4])
		args[d] = []*literal.Literal{shard, b}
	}
	outs, err := exe.(multiExe).RunOnDevices(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := literal.New(dtype.F32, []int64{8, 8})
	for d, o := range outs {
		if len(o) != 1 || len(o[0].Shape) != 2 || o[0].Shape[0] != 2 || o[0].Shape[1] != 8 {
			t.Fatalf("device %d result %v, want a 2x8 shard", d, o)
		}
		copy(full.Data[d*2*8*4:], o[0].Data)
	}
	if c := runtime.Compare(full, want[0], runtime.DefaultTolerance(dtype.F32)); !c.OK {
		t.Errorf("sharded product: %s", c.Detail)
	}
}
