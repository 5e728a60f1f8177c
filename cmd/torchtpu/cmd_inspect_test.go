package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func inspectFixture(t *testing.T, rel string) string {
	p := filepath.Join("..", "..", "..", "shared", "fixtures", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixture missing: %v", err)
		}
		t.Skipf("fixture missing: %v", err)
	}
	return p
}

func TestInspect(t *testing.T) {
	p := inspectFixture(t, "models/mlp_dynamic_batch.pt2")
	var out, errb bytes.Buffer
	if code := dispatch(context.Background(), []string{"inspect", p}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"input.0", "f32[s31,16]", "s31        [1, 64]", "output.0", "parameters: 4 tensors", "aten::linear.default", "torch 2.14.1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := dispatch(context.Background(), []string{"inspect", "--json", p}, &out, &errb); code != 0 {
		t.Fatalf("--json exit %d: %s", code, errb.String())
	}
	var s map[string]any
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s["ops"] == nil {
		t.Errorf("--json: %v\n%s", err, out.String())
	}
	errb.Reset()
	if code := dispatch(context.Background(), []string{"inspect", "/nonexistent.pt2"}, &out, &errb); code == 0 {
		t.Error("missing file: exit 0")
	}
	out.Reset()
	if code := dispatch(context.Background(), []string{"inspect", "--passes", "--dump-after", "dce", p}, &out, &errb); code != 0 || !strings.Contains(out.String(), "// after dce") {
		t.Errorf("--passes: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if code := dispatch(context.Background(), []string{"inspect", "--passes", "--disable-pass", "nope", p}, &out, &errb); code != 1 {
		t.Errorf("unknown pass: exit %d", code)
	}
	if code := dispatch(context.Background(), []string{"inspect"}, &out, &errb); code != 2 {
		t.Errorf("no argument: exit %d", code)
	}
}
