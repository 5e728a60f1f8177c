package native

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// dumpSeq numbers the modules written by dumpModule.
var dumpSeq atomic.Int64

// dumpModule writes m as text to $TORCHTPU_NATIVE_DUMP/moduleN.mlir when
// that variable names a folder (a debugging aid; errors are ignored).
func dumpModule(m *stablehlo.Module) {
	dir := os.Getenv("TORCHTPU_NATIVE_DUMP")
	if dir == "" {
		return
	}
	name := filepath.Join(dir, fmt.Sprintf("module%d.mlir", dumpSeq.Add(1)))
	f, err := os.Create(name)
	if err != nil {
		return
	}
	defer f.Close()
	_ = stablehlo.Print(f, m)
}

// dumpPlans writes the execution plan summaries of a compiled program
// beside its module (TORCHTPU_NATIVE_DUMP).
func dumpPlans(p *program) {
	dir := os.Getenv("TORCHTPU_NATIVE_DUMP")
	if dir == "" {
		return
	}
	name := filepath.Join(dir, fmt.Sprintf("module%d.plan.txt", dumpSeq.Load()))
	f, err := os.Create(name)
	if err != nil {
		return
	}
	defer f.Close()
	for fn, fp := range p.plans {
		if fp.exec != nil {
			fmt.Fprintf(f, "@%s: %s\n", fn.Name, fp.exec.summary())
		}
	}
}
