package stablehlo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// mlirOpt finds LLVM's mlir-opt: $TORCHTPU_MLIR_OPT, mlir-opt on PATH, or
// a Debian mlir-N-tools install. "" when there is none.
func mlirOpt() string {
	if p := os.Getenv("TORCHTPU_MLIR_OPT"); p != "" {
		return p
	}
	if p, err := exec.LookPath("mlir-opt"); err == nil {
		return p
	}
	m, _ := filepath.Glob("/usr/lib/llvm-*/bin/mlir-opt")
	if len(m) > 0 {
		return m[len(m)-1]
	}
	return ""
}

// TestCanonicalTextParsesInMLIR feeds the canonical text of corpus modules
// (every sampleEvery-th; all of them pass with sampleEvery = 1) to MLIR's
// own parser (mlir-opt, StableHLO ops as an unregistered
// dialect: this checks the generic op syntax, regions, types and every
// builtin attribute form: dense literals, hex floats, arrays, strings...).
// The same goes for a module built with every builder method.
// MLIR's output is then parsed back by our parser and must equal the
// original module: MLIR read each value as we meant it.
func TestCanonicalTextParsesInMLIR(t *testing.T) {
	opt := mlirOpt()
	if opt == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("mlir-opt not installed: .ci/run installs mlir-22-tools")
		}
		t.Skip("mlir-opt not installed (apt-get install mlir-22-tools, or set TORCHTPU_MLIR_OPT)")
	}
	files := corpusFiles(t)
	var originals []*Module
	var in bytes.Buffer
	seen := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := Parse(f, src)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		for _, m := range mods {
			seen++
			if seen%sampleEvery != 0 {
				continue
			}
			if len(originals) > 0 {
				in.WriteString("// -----\n")
			}
			if err := Print(&in, m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			originals = append(originals, m)
		}
	}
	// And a module from the builder, which uses every op it offers.
	in.WriteString("// -----\n")
	built := everyOpModule(t)
	if err := Print(&in, built); err != nil {
		t.Fatal(err)
	}
	originals = append(originals, built)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The verifier is off: with StableHLO unregistered, MLIR cannot tell
	// that a call inside a reduce body sees the module's symbols.
	cmd := exec.CommandContext(ctx, opt, "--allow-unregistered-dialect", "--split-input-file",
		"--mlir-very-unsafe-disable-verifier-on-parsing", "--verify-each=false", "--mlir-print-assume-verified", "--mlir-disable-threading", "-")
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := stderr.String()
		if len(msg) > 4000 {
			msg = msg[:4000]
		}
		t.Fatalf("mlir-opt rejected the canonical text: %v\n%s", err, msg)
	}
	back, err := Parse("mlir-opt output", out.Bytes())
	if err != nil {
		t.Fatalf("MLIR's output does not parse: %v", err)
	}
	if len(back) != len(originals) {
		t.Fatalf("mlir-opt returned %d modules for %d", len(back), len(originals))
	}
	bad := 0
	for i := range originals {
		if err := equalModules(originals[i], back[i]); err != nil {
			bad++
			if bad <= 10 {
				t.Errorf("module %d (%s): MLIR read it differently: %v", i, moduleLabel(originals[i]), err)
			}
		}
	}
	t.Logf("%s accepted %d modules; %d read back differently", opt, len(originals), bad)
}

// sampleEvery keeps the mlir-opt run short on a shared machine.
const sampleEvery = 4

func moduleLabel(m *Module) string {
	if len(m.Funcs) > 0 {
		return fmt.Sprintf("%v @%s", m.Funcs[0].Loc, m.Funcs[0].Name)
	}
	return m.Name
}
