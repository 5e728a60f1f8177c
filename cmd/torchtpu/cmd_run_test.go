package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/safetensors"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

const example = "../../examples/mlp.pt2"

func TestRunPrintsOutputs(t *testing.T) {
	code, out, errs := runCLI(t, "run", example)
	if code != 0 || !strings.Contains(out, "output.0: float32[2, 3]") || !strings.Contains(out, "tensor([[") {
		t.Fatalf("run: code %d\n%s%s", code, out, errs)
	}
	dst := filepath.Join(t.TempDir(), "out.safetensors")
	code, _, errs = runCLI(t, "run", example, "--inputs", "../../examples/mlp.io.safetensors", "--out", dst)
	if code != 0 {
		t.Fatalf("run --inputs --out: %d %s", code, errs)
	}
	f, err := safetensors.Load(dst)
	if err != nil || f.Tensors["output.0"] == nil {
		t.Fatalf("--out wrote %v (%v)", f, err)
	}
}

func TestVerifyExitStatus(t *testing.T) {
	code, out, _ := runCLI(t, "verify", example, "--io", "../../examples/mlp.io.safetensors")
	if code != 0 || !strings.Contains(out, "PASS") || !strings.Contains(out, "max abs") {
		t.Errorf("verify: code %d\n%s", code, out)
	}
	// Perturb one expected value: verify must fail and say where.
	f, err := safetensors.Load("../../examples/mlp.io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	want := f.Tensors["output.0"].Clone()
	want.SetFloat64(1, want.Float64(1)+0.01)
	bad := filepath.Join(t.TempDir(), "bad.io.safetensors")
	if err := safetensors.Save(bad, map[string]*literal.Literal{"input.0": f.Tensors["input.0"], "output.0": want}, nil); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "verify", example, "--io", bad)
	if code != 1 || !strings.Contains(out, "MISMATCH: element 1") || !strings.Contains(out, "FAIL") {
		t.Errorf("verify of a perturbed output: code %d\n%s", code, out)
	}
	// A loose enough tolerance accepts it.
	if code, out, _ = runCLI(t, "verify", example, "--io", bad, "--atol", "0.1"); code != 0 {
		t.Errorf("--atol 0.1: code %d\n%s", code, out)
	}
	code, _, _ = runCLI(t, "verify", example)
	if code != 2 {
		t.Errorf("verify without --io: exit %d, want 2", code)
	}
}

func TestOpsAndCoverage(t *testing.T) {
	code, out, _ := runCLI(t, "ops")
	if code != 0 || !strings.Contains(out, "of 193 Core ATen ops covered") {
		t.Errorf("ops: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "coverage", example)
	if code != 0 || !strings.Contains(out, "aten::linear.default") || !strings.Contains(out, "0 unsupported") {
		t.Errorf("coverage: %d\n%s", code, out)
	}
}

func TestHelpTeaches(t *testing.T) {
	for _, cmd := range []string{"run", "verify", "ops", "coverage"} {
		code, _, errs := runCLI(t, cmd, "-h")
		if code != 0 || !strings.Contains(errs, "usage: torchtpu "+cmd) || !strings.Contains(errs, "Flags:") {
			t.Errorf("%s -h: code %d\n%s", cmd, code, errs)
		}
	}
}
