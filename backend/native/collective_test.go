package native

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// A process failing before a rendezvous must not leave its peers waiting.
func TestGridFailureReleasesPeers(t *testing.T) {
	p, err := newProgram(&stablehlo.Module{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := newGrid(ctx, 4, 1)
	op := &stablehlo.Op{Name: "stablehlo.all_reduce"}
	boom := errors.New("boom")
	err = p.runGrid(g, func(pr *process) error {
		if pr.replica == 2 {
			return boom
		}
		_, err := g.exchange(pr, op, "k", []int{0, 1, 2, 3}, Token{})
		return err
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the failing process's error", err)
	}
	if ctx.Err() != nil {
		t.Fatal("peers waited until the deadline")
	}
}

// Repeated rendezvous on one op (a collective in a loop) pair up in order.
func TestGridRepeatedExchange(t *testing.T) {
	p, _ := newProgram(&stablehlo.Module{})
	g := newGrid(context.Background(), 2, 1)
	op := &stablehlo.Op{Name: "stablehlo.all_gather"}
	got := make([][]int, 2)
	err := p.runGrid(g, func(pr *process) error {
		for i := 0; i < 50; i++ {
			vs, err := g.exchange(pr, op, "k", []int{0, 1}, pr.replica*1000+i)
			if err != nil {
				return err
			}
			if vs[0].(int)%1000 != i || vs[1].(int)%1000 != i {
				return errors.New("rendezvous mixed iterations")
			}
			got[pr.replica] = append(got[pr.replica], vs[1-pr.replica].(int))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 50 || got[0][49] != 1049 {
		t.Fatalf("replica 0 saw %v", got[0])
	}
}

func TestGridNonMember(t *testing.T) {
	p, _ := newProgram(&stablehlo.Module{})
	g := newGrid(context.Background(), 2, 1)
	err := p.runGrid(g, func(pr *process) error {
		_, err := g.exchange(pr, &stablehlo.Op{Name: "x"}, "k", []int{0}, Token{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "not a member") {
		t.Fatalf("err = %v, want a membership error", err)
	}
}

// A module declaring two replicas runs as two processes: the sum of the
// replica ids over both is 0 + 1.
func TestCompileReadsReplicaCount(t *testing.T) {
	src := `module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main() -> tensor<ui32> {
    %0 = stablehlo.replica_id : tensor<ui32>
    %1 = "stablehlo.all_reduce"(%0) ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<ui32>) -> tensor<ui32>
    return %1 : tensor<ui32>
  }
}`
	mods, err := stablehlo.Parse("m.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := (&Backend{}).Compile(context.Background(), mods[0], backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exe.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Int64(0); got != 1 {
		t.Fatalf("sum of replica ids = %d, want 1", got)
	}
}
