//go:build cgo

package pjrt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/pjrt"
	"github.com/torchtpu/torchtpu/collective"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// What the XLA CPU plugin offers a group of processes (each one rank of a
// torch.distributed group owning one device), measured in a child process
// whose client is created with the options a multi-process client would
// take (num_nodes, node_id: the names XLA's own CPU client uses). The
// plugin's PJRT_Client_Create reads cpu_device_count and nothing else
// (it takes no key-value store either), so each process sees only its own
// devices, all with process index 0: a program over the group's ranks
// cannot be compiled, and the tpu device's c10d backend stages collectives
// through host memory on this plugin (docs/distributed.md). The test fails
// when a plugin starts to honour the options, so that the document and the
// backend's choice are revisited.
func TestXLACPUMultiProcess(t *testing.T) {
	xlaCPU(t)
	if os.Getenv("TT_MULTIPROCESS_CHILD") == "1" {
		multiProcessChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestXLACPUMultiProcess$")
	cmd.Env = append(os.Environ(), "TT_MULTIPROCESS_CHILD=1",
		pjrt.OptionsEnv+"=xla-cpu:num_nodes=2;xla-cpu:node_id=1;xla-cpu:cpu_device_count=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var got struct {
		Topology pjrt.Topology
		Compile  string
	}
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "RESULT ") {
			line = strings.TrimPrefix(l, "RESULT ")
		}
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("child output %q: %v\n%s", line, err, out)
	}
	t.Logf("node 1 of 2: %+v; a 2-rank all_reduce: %s", got.Topology, got.Compile)
	if got.Topology.Process != 0 || len(got.Topology.Devices) != 1 || got.Topology.Addressable != 1 {
		t.Errorf("the plugin now sees other processes (%+v): revisit docs/distributed.md and the c10d backend's "+
			"host staging on PJRT", got.Topology)
	}
	if !strings.Contains(got.Compile, "need 2 devices") {
		t.Errorf("a 2-rank program on one process's client: %s", got.Compile)
	}
}

func multiProcessChild() {
	b, err := backend.Open("xla-cpu")
	if err != nil {
		fmt.Println("RESULT", `{"Compile": "open: `+err.Error()+`"}`)
		return
	}
	topo, err := b.(*pjrt.Backend).Topology()
	res := map[string]any{"Topology": topo}
	if err != nil {
		res["Compile"] = "topology: " + err.Error()
	} else {
		text, _ := collective.Text(collective.Call{Kind: collective.AllReduce, DType: dtype.F32, Shape: []int64{4}, World: 2})
		m, _ := stablehlo.ParseModule("all_reduce.mlir", []byte(text))
		if _, err := b.Compile(context.Background(), m, backend.Options{}); err != nil {
			res["Compile"] = err.Error()
		} else {
			res["Compile"] = "compiled"
		}
	}
	j, _ := json.Marshal(res)
	fmt.Println("RESULT", string(j))
}
