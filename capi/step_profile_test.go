package capi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
