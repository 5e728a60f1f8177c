package pt2

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/limits"
)

// Each limit of package limits has a file that exceeds it here; the
// error must name the limit's environment variable, and come before the
// tensor or document is allocated.

func readWith(b []byte, lim limits.Limits) error {
	_, err := ReadWithOptions(bytes.NewReader(b), int64(len(b)), Options{Limits: lim})
	return err
}

// expectLimit checks that err is the limit error of env.
func expectLimit(t *testing.T, what string, err error, env string) {
	t.Helper()
	var le *limits.Error
	if !errors.As(err, &le) || le.Env != env {
		t.Errorf("%s: error %v, want the limit of %s", what, err, env)
	}
}

// configEdit edits the weights config of an archive.
func configEdit(from, to string) func(string, []byte) []byte {
	return func(name string, d []byte) []byte {
		if strings.HasSuffix(name, "_weights_config.json") {
			return []byte(strings.Replace(string(d), from, to, 1))
		}
		return d
	}
}

// TestStoredDtypeUnknown: a weight whose metadata names dtype 0 (the
// schema's UNKNOWN, an element type of size 0) is an error where the
// metadata is read. It used to divide by zero in rawTensor (the crasher
// kept in testdata/fuzz/FuzzArchiveEntry).
func TestStoredDtypeUnknown(t *testing.T) {
	b := rewrite(t, "testdata/views.pt2", configEdit(`"dtype": 7`, `"dtype": 0`), nil)
	expectErr(t, "dtype 0", readBytes(b), "dtype 0 names no element type")
	b = rewrite(t, "testdata/views.pt2", configEdit(`"dtype": 7`, `"dtype": 9`), nil)
	expectErr(t, "dtype 9 (complex32)", readBytes(b), "unsupported scalar type 9")
}

func TestTensorLimit(t *testing.T) {
	const good = "testdata/views.pt2"
	// A weight asking for 2^30 × 8 f32 elements (32 GiB) under the
	// default limit of 8 GiB, and its storage file is 48 bytes: refused
	// before the file is read.
	huge := rewrite(t, good, configEdit(`"sizes": [{"as_int": 3}, {"as_int": 4}]`, `"sizes": [{"as_int": 1073741824}, {"as_int": 8}]`), nil)
	expectLimit(t, "32 GiB weight", readBytes(huge), limits.EnvTensorBytes)
	// The real file exceeds a limit of 40 bytes (its largest weight is
	// 96) and passes a limit of 96: the limit is raisable.
	raw := rewrite(t, good, keep, nil)
	expectLimit(t, "96-byte weight under 40", readWith(raw, limits.Limits{TensorBytes: 40}), limits.EnvTensorBytes)
	if err := readWith(raw, limits.Limits{TensorBytes: 96}); err != nil {
		t.Errorf("96-byte weight under 96: %v", err)
	}
	// A pickled storage (the legacy layout's state dict) over the limit.
	legacy := rewrite(t, "testdata/views_legacy.pt2", keep, nil)
	expectLimit(t, "legacy storage under 40", readWith(legacy, limits.Limits{TensorBytes: 40}), limits.EnvTensorBytes)
}

func TestWeightLimit(t *testing.T) {
	// views.pt2 holds 284 bytes of weights and constants.
	raw := rewrite(t, "testdata/views.pt2", keep, nil)
	expectLimit(t, "284 bytes under 200", readWith(raw, limits.Limits{WeightBytes: 200}), limits.EnvWeightBytes)
	if err := readWith(raw, limits.Limits{WeightBytes: 1 << 20}); err != nil {
		t.Errorf("under 1 MiB: %v", err)
	}
	legacy := rewrite(t, "testdata/views_legacy.pt2", keep, nil)
	expectLimit(t, "legacy under 200", readWith(legacy, limits.Limits{WeightBytes: 200}), limits.EnvWeightBytes)
	// A view with stride 0 is far larger than its storage: lin.bias as
	// 2^18 × 4 bytes (1 MiB) read from its 12-byte file, under a limit of
	// 512 KiB, is refused before the copy is allocated.
	bcast := rewrite(t, "testdata/views.pt2", configEdit(
		`"sizes": [{"as_int": 3}], "requires_grad": true, "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 1}]`,
		`"sizes": [{"as_int": 262144}], "requires_grad": true, "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 0}]`), nil)
	expectLimit(t, "1 MiB broadcast view under 512 KiB", readWith(bcast, limits.Limits{WeightBytes: 512 << 10}), limits.EnvWeightBytes)
}

func TestProgramLimit(t *testing.T) {
	// models/model.json of views.pt2 is 17,552 bytes.
	raw := rewrite(t, "testdata/views.pt2", keep, nil)
	expectLimit(t, "program under 10000", readWith(raw, limits.Limits{ProgramBytes: 10000}), limits.EnvProgramBytes)
	legacy := rewrite(t, "testdata/views_legacy.pt2", keep, nil)
	expectLimit(t, "legacy program under 10000", readWith(legacy, limits.Limits{ProgramBytes: 10000}), limits.EnvProgramBytes)
	if err := readWith(raw, limits.Limits{ProgramBytes: 1 << 20}); err != nil {
		t.Errorf("under 1 MiB: %v", err)
	}
}

func TestNestingLimit(t *testing.T) {
	// 600 nested arrays in a field the reader ignores, under the default
	// limit of 500 levels: refused before the JSON is decoded.
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	raw := rewrite(t, "testdata/views.pt2", jsonEdit(`"graph_module"`, `"deep": `+deep+`, "graph_module"`), nil)
	expectLimit(t, "600 levels of JSON", readBytes(raw), limits.EnvNesting)
	if err := readWith(raw, limits.Limits{Nesting: 700}); err != nil {
		t.Errorf("600 levels under 700: %v", err)
	}
	cfg := rewrite(t, "testdata/views.pt2", configEdit(`"config"`, `"deep": `+deep+`, "config"`), nil)
	expectLimit(t, "600 levels in the weights config", readBytes(cfg), limits.EnvNesting)
	// A legacy state dict pickling 600 nested lists.
	pkl := []byte("\x80\x02}X\x01\x00\x00\x00a")
	pkl = append(pkl, bytes.Repeat([]byte("]"), 600)...)
	pkl = append(pkl, bytes.Repeat([]byte("a"), 599)...)
	pkl = append(pkl, "s."...)
	legacy := rewrite(t, "testdata/views_legacy.pt2", func(n string, d []byte) []byte {
		if n == "serialized_state_dict.pt" {
			return torchSaveZip(t, pkl)
		}
		return d
	}, nil)
	expectLimit(t, "600 levels of pickled lists", readBytes(legacy), limits.EnvNesting)
}
