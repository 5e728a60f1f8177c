package safetensors

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/limits"
)

func expectLimit(t *testing.T, what string, err error, env string) {
	t.Helper()
	var le *limits.Error
	if !errors.As(err, &le) || le.Env != env {
		t.Errorf("%s: error %v, want the limit of %s", what, err, env)
	}
}

func TestLimits(t *testing.T) {
	two := file(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[16,32]}}`, 32)
	if _, err := Decode(two); err != nil {
		t.Fatal(err)
	}
	expectLimit(t, "16-byte tensor under 12", errOf(DecodeWithLimits(two, limits.Limits{TensorBytes: 12})), limits.EnvTensorBytes)
	expectLimit(t, "32 bytes in all under 24", errOf(DecodeWithLimits(two, limits.Limits{WeightBytes: 24})), limits.EnvWeightBytes)
	if _, err := DecodeWithLimits(two, limits.Limits{TensorBytes: 16, WeightBytes: 32}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
	deep := file(`{"__metadata__":{"k":"v"},"x":`+strings.Repeat("[", 600)+strings.Repeat("]", 600)+`}`, 0)
	expectLimit(t, "600 levels of header JSON", errOf(Decode(deep)), limits.EnvNesting)
	// The same through a file, as the CLI reads its inputs.
	path := filepath.Join(t.TempDir(), "deep.safetensors")
	if err := writeFile(path, deep); err != nil {
		t.Fatal(err)
	}
	expectLimit(t, "LoadOnly of 600 levels", errOf(LoadOnly(path, IsInput)), limits.EnvNesting)
	expectLimit(t, "Load of 600 levels", errOf(Load(path)), limits.EnvNesting)
}

func errOf(_ *File, err error) error { return err }

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
