package safetensors

import (
	"bytes"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

func TestLoadOnlyInputs(t *testing.T) {
	out, err := literal.New(dtype.F32, []int64{2 << 20}) // 8 MiB of expected output
	if err != nil {
		t.Fatal(err)
	}
	in, err := literal.FromBytes(dtype.F32, []int64{2}, []byte{0, 0, 128, 63, 0, 0, 0, 64})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.io.safetensors")
	if err := Save(path, map[string]*literal.Literal{"input.0": in, "output.0": out}, nil); err != nil {
		t.Fatal(err)
	}
	var f *File
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	f, err = LoadOnly(path, IsInput)
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Inputs(); len(got) != 1 || !bytes.Equal(got[0].Data, in.Data) || got[0].String() != in.String() {
		t.Fatalf("inputs %v", got)
	}
	if len(f.Outputs()) != 0 || len(f.Names) != 1 {
		t.Errorf("read %v, want input.0 alone", f.Names)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
		t.Errorf("reading one 8-byte input allocated %d bytes: the output was read too", a)
	}
}

// LoadOnly checks the header as Decode does, whatever it keeps.
func TestLoadOnlyRejects(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]byte{
		"short":    {1, 2},
		"past end": file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 4),
		"overlap":  file(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}`, 3),
		"dtype":    file(`{"a":{"dtype":"X9","shape":[1],"data_offsets":[0,1]}}`, 1),
	}
	for name, b := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOnly(path, func(string) bool { return false }); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLoadOnlyFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures(t), "models", "*.io.safetensors"))
	for _, path := range files {
		all, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := LoadOnly(path, IsInput)
		if err != nil {
			t.Fatal(err)
		}
		want, got := all.Inputs(), f.Inputs()
		if len(got) != len(want) {
			t.Fatalf("%s: %d inputs, want %d", path, len(got), len(want))
		}
		for i := range want {
			if got[i].String() != want[i].String() || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Errorf("%s: input.%d differs", path, i)
			}
		}
	}
}
