package limits

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestJSONDepth(t *testing.T) {
	l := Limits{Nesting: 3}
	if err := l.JSONDepth("x", []byte(`{"a": [[1]], "b": "[[[[[[", "c": "\"[[[["}`)); err != nil {
		t.Errorf("depth 3 (brackets inside strings do not count): %v", err)
	}
	err := l.JSONDepth("x.json", []byte(`{"a": [[[1]]]}`))
	var le *Error
	if !errors.As(err, &le) || le.Asked != 4 || le.Limit != 3 || !strings.Contains(err.Error(), EnvNesting) || !strings.Contains(err.Error(), "x.json") {
		t.Errorf("depth 4: %v", err)
	}
}

func TestBudget(t *testing.T) {
	b := Limits{WeightBytes: 100}.NewBudget()
	if err := b.Take("a", 60); err != nil {
		t.Fatal(err)
	}
	if err := b.Take("b", 41); err == nil || !strings.Contains(err.Error(), EnvWeightBytes) {
		t.Errorf("101 of 100 bytes: %v", err)
	}
	if err := b.Take("c", 1<<62); err == nil {
		t.Error("a huge charge passed")
	}
	if err := b.Take("d", 40); err != nil || b.Used() != 100 {
		t.Errorf("exactly the limit: %v, used %d", err, b.Used())
	}
}

func TestOrDefault(t *testing.T) {
	d := Limits{}.OrDefault()
	if d != Default() || d.TensorBytes <= 0 || d.WeightBytes <= 0 || d.ProgramBytes <= 0 || d.Nesting <= 0 {
		t.Errorf("defaults %+v", d)
	}
	if got := (Limits{Nesting: 7}).OrDefault(); got.Nesting != 7 || got.TensorBytes != d.TensorBytes {
		t.Errorf("a set field was replaced: %+v", got)
	}
	if err := (Limits{TensorBytes: 10}).Tensor("t", 11); err == nil || !strings.Contains(err.Error(), EnvTensorBytes) {
		t.Errorf("tensor limit: %v", err)
	}
	if err := (Limits{ProgramBytes: 10}).Program("p", 11); err == nil || !strings.Contains(err.Error(), EnvProgramBytes) {
		t.Errorf("program limit: %v", err)
	}
}

// TestEnvironment: the TORCHTPU_MAX_* variables set the defaults (read in
// a child process, as Default reads them once per process); malformed or
// non-positive values keep the built-in default.
func TestEnvironment(t *testing.T) {
	if os.Getenv("LIMITS_TEST_CHILD") == "1" {
		d := Default()
		fmt.Printf("%d %d %d %d\n", d.TensorBytes, d.WeightBytes, d.ProgramBytes, d.Nesting)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvironment$")
	cmd.Env = append(os.Environ(), "LIMITS_TEST_CHILD=1", EnvTensorBytes+"=1000", EnvWeightBytes+"=-5",
		EnvProgramBytes+"=12k", EnvNesting+"=42")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := fmt.Sprintf("1000 %d %d 42", DefaultWeightBytes, DefaultProgramBytes)
	if got := strings.SplitN(string(out), "\n", 2)[0]; got != want {
		t.Errorf("child read %q, want %q", got, want)
	}
}
