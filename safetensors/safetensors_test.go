package safetensors

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

func fixtures(t testing.TB) string {
	dir := filepath.Join("..", "..", "shared", "fixtures")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixtures missing: %v", err)
		}
		t.Skipf("fixtures missing: %v", err)
	}
	return dir
}

// TestFixturesRoundTrip decodes every .io.safetensors file PyTorch wrote,
// re-encodes it and decodes it again to the same tensors.
func TestFixturesRoundTrip(t *testing.T) {
	root := fixtures(t)
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.io.safetensors"))
	seen := map[dtype.DType]bool{}
	for _, path := range files {
		f, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if len(f.Inputs()) == 0 && !strings.Contains(path, "rand") {
			// every fixture has at least one input or output
			if len(f.Outputs()) == 0 {
				t.Errorf("%s: no input.N or output.N", path)
			}
		}
		var buf bytes.Buffer
		if err := Write(&buf, f.Tensors, f.Metadata); err != nil {
			t.Errorf("%s: write: %v", path, err)
			continue
		}
		g, err := Decode(buf.Bytes())
		if err != nil {
			t.Errorf("%s: re-read: %v", path, err)
			continue
		}
		for n, l := range f.Tensors {
			seen[l.DType] = true
			m := g.Tensors[n]
			if m == nil || m.String() != l.String() || !bytes.Equal(m.Data, l.Data) {
				t.Errorf("%s: %s changed in the round trip", path, n)
			}
		}
	}
	t.Logf("%d files, dtypes %v", len(files), seen)
}

func TestWriteDeterministic(t *testing.T) {
	ts := map[string]*literal.Literal{}
	for i, n := range []string{"input.10", "input.2", "output.0", "input.0", "a"} {
		l, _ := literal.New(dtype.BF16, []int64{int64(i + 1)})
		ts[n] = l
	}
	ts["s"], _ = literal.New(dtype.Bool, nil)
	var first []byte
	for i := 0; i < 5; i++ {
		var buf bytes.Buffer
		if err := Write(&buf, ts, map[string]string{"format": "pt"}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = buf.Bytes()
		} else if !bytes.Equal(first, buf.Bytes()) {
			t.Fatal("output differs between runs")
		}
	}
	f, err := Decode(first)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Names, " "); got != "a input.0 input.2 input.10 output.0 s" {
		t.Errorf("order %q", got)
	}
	if hl := binary.LittleEndian.Uint64(first); hl%8 != 0 {
		t.Errorf("header length %d not padded", hl)
	}
	if f.Metadata["format"] != "pt" || len(f.Inputs()) != 1 {
		t.Errorf("metadata %v inputs %d", f.Metadata, len(f.Inputs()))
	}
}

func file(header string, data int) []byte {
	b := make([]byte, 8, 8+len(header)+data)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, data)...)
}

func TestRejects(t *testing.T) {
	cases := map[string][]byte{
		"short": []byte{1, 2},
		"huge header": func() []byte {
			b := file("{}", 0)
			binary.LittleEndian.PutUint64(b, 1<<40)
			return b
		}(),
		"bad json":    file(`{"a":`, 0),
		"dtype":       file(`{"a":{"dtype":"X9","shape":[1],"data_offsets":[0,1]}}`, 1),
		"past end":    file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 4),
		"wrong span":  file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, 8),
		"negative":    file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, 0),
		"absurd":      file(`{"a":{"dtype":"F32","shape":[4000000000,4000000000],"data_offsets":[0,4]}}`, 4),
		"overlap":     file(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}`, 3),
		"duplicate":   file(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, 2),
		"bad offsets": file(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[2,1]}}`, 2),
		"metadata":    file(`{"__metadata__":{"a":1}}`, 0),
	}
	for name, b := range cases {
		if _, err := Decode(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
