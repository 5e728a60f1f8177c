package capi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
)

// TestStepProfile: with a step profile asked for, a program's runs write
// their steps' times every stepProfileEvery runs, named after the program
// and its place in the load order; without one, a program has none.
func TestStepProfile(t *testing.T) {
	dir := t.TempDir()
	defer func(old string) { stepProfileDir = old }(stepProfileDir)
	stepProfileDir = dir
	h, ins, _ := loadFixture(t, "mlp")
	for i := 0; i < stepProfileEvery; i++ {
		res, err := Run(context.Background(), h, ins)
		if err != nil {
			t.Fatal(err)
		}
		Free(res)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "program-*.steps.txt"))
	if len(files) != 1 {
		t.Fatalf("profiles written: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"runs 50;", "steps take", "kind", "top steps"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the profile lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "dot_general") {
		t.Fatalf("the MLP's products are not among its steps:\n%s", text)
	}

	// RunInto's outputs: the MLP's one small output is copied, each run
	h2, ins2, io := loadFixture(t, "mlp")
	want := io.Outputs()[0]
	out := &literal.Literal{DType: want.DType, Shape: want.Shape, Data: make([]byte, len(want.Data))}
	for i := 0; i < stepProfileEvery; i++ {
		if err := RunInto(context.Background(), h2, ins2, []TensorDesc{desc(out)}); err != nil {
			t.Fatal(err)
		}
	}
	both, _ := filepath.Glob(filepath.Join(dir, "program-*.steps.txt"))
	if len(both) != 2 {
		t.Fatalf("profiles written: %v", both)
	}
	second := both[0]
	if second == files[0] {
		second = both[1]
	}
	b, err = os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "outputs stored after the run:") || !strings.Contains(string(b), "1.0 copied per run") {
		t.Fatalf("the profile does not count the copied output:\n%s", b)
	}

	stepProfileDir = ""
	if s := newStepProfile("program"); s != nil {
		t.Fatal("a step profile without TORCHTPU_STEP_PROFILE")
	}
}

func TestSafeFileRune(t *testing.T) {
	if got := strings.Map(safeFileRune, "fwd/0 graph:a.b-c_d"); got != "fwd_0_graph_a.b-c_d" {
		t.Fatalf("file name %q", got)
	}
}
