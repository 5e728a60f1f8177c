package safetensors

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// seedFiles returns the testdata-like files every run has and a sample of
// the I/O files of ../shared/fixtures (missing fixtures fail under CI=true).
func seedFiles(tb testing.TB) [][]byte {
	tb.Helper()
	out := [][]byte{
		file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"k":"v"}}`, 8),
		file(`{"b":{"dtype":"BF16","shape":[],"data_offsets":[0,2]}}`, 2),
		file(`{"e":{"dtype":"I64","shape":[0,3],"data_offsets":[0,0]},"f":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}`, 1),
	}
	root := filepath.Join("..", "..", "shared", "fixtures")
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.io.safetensors"))
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("fixtures missing at %s", root)
		}
		return out
	}
	sort.Strings(files)
	n := 0
	for i := 0; i < len(files) && n < 24; i += 1 + len(files)/24 {
		b, err := os.ReadFile(files[i])
		if err != nil {
			tb.Fatal(err)
		}
		if len(b) <= 16<<10 {
			out = append(out, b)
			n++
		}
	}
	return out
}

// FuzzDecode: whatever Decode accepts, LoadOnly reads the same from a
// file, Write writes, and the written file decodes to identical tensors
// and metadata; writing that again gives the same bytes.
func FuzzDecode(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	path := filepath.Join(f.TempDir(), "fuzz.safetensors")
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Decode(data)
		if err != nil {
			return
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lo, err := LoadOnly(path, func(string) bool { return true })
		if err != nil {
			t.Fatalf("Decode accepts, LoadOnly refuses: %v", err)
		}
		sameFile(t, "LoadOnly", fl, lo)
		if _, empty := fl.Tensors[""]; empty {
			return // a tensor named "" is read but not written
		}
		var buf bytes.Buffer
		if err := Write(&buf, fl.Tensors, fl.Metadata); err != nil {
			t.Fatalf("write of a decoded file: %v", err)
		}
		again, err := Decode(buf.Bytes())
		if err != nil {
			t.Fatalf("re-decode of the written file: %v", err)
		}
		sameFile(t, "written and read back", fl, again)
		var buf2 bytes.Buffer
		if err := Write(&buf2, again.Tensors, again.Metadata); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("writing the read-back file again gives other bytes (%v)", err)
		}
	})
}

// sameFile checks that two decoded files hold the same tensors (name,
// dtype, shape, bytes) and metadata.
func sameFile(t *testing.T, what string, a, b *File) {
	t.Helper()
	if len(a.Tensors) != len(b.Tensors) || len(a.Metadata) != len(b.Metadata) {
		t.Fatalf("%s: %d tensors and %d metadata, want %d and %d", what, len(b.Tensors), len(b.Metadata), len(a.Tensors), len(a.Metadata))
	}
	for n, l := range a.Tensors {
		m := b.Tensors[n]
		if m == nil || m.String() != l.String() || !bytes.Equal(m.Data, l.Data) {
			t.Fatalf("%s: tensor %q differs: %v vs %v", what, n, l, m)
		}
	}
	for k, v := range a.Metadata {
		if w, ok := b.Metadata[k]; !ok || w != v {
			t.Fatalf("%s: metadata %q differs", what, k)
		}
	}
}
