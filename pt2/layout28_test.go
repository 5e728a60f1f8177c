package pt2

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/safetensors"
)

func zipEntry(t *testing.T, path, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return b
		}
	}
	t.Fatalf("%s: no entry %s", path, name)
	return nil
}

// TestPickledWeightsLayout reads the torch ~2.8 layout: a PT2 archive whose
// weights and constants are one torch.save dict each
// (data/weights/model.pt, data/constants/model.pt). It is assembled from
// the current-layout archive and the pickles torch 2.6 wrote for the same
// module, and must give the values PyTorch wrote to safetensors.
func TestPickledWeightsLayout(t *testing.T) {
	if _, err := os.Stat("testdata/views_legacy.pt2"); err != nil {
		t.Fatal("testdata/views_legacy.pt2 missing: run testdata/gen_views.py")
	}
	state := zipEntry(t, "testdata/views_legacy.pt2", "serialized_state_dict.pt")
	consts := zipEntry(t, "testdata/views_legacy.pt2", "serialized_constants.pt")
	b := rewrite(t, "testdata/views.pt2", func(n string, d []byte) []byte {
		if strings.Contains(n, "/data/weights/") || strings.Contains(n, "/data/constants/") {
			return nil
		}
		return d
	}, map[string][]byte{"views/data/weights/model.pt": state, "views/data/constants/model.pt": consts})
	p, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := safetensors.Load("testdata/views.weights.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fqn := range want.Names {
		if fqn == "__sample_input__" {
			continue
		}
		l, ok := p.Weight(fqn)
		w := want.Tensors[fqn]
		if !ok || l.String() != w.String() || !bytes.Equal(l.Data, w.Data) {
			t.Errorf("%s: got %v, want %v", fqn, l, w)
		}
		n++
	}
	if n < 8 {
		t.Errorf("only %d weights compared", n)
	}
}

func TestModels(t *testing.T) {
	raw, err := os.ReadFile("testdata/views.pt2")
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(raw)
	names, err := Models(r, int64(len(raw)))
	if err != nil || strings.Join(names, ",") != "model" {
		t.Errorf("Models = %v, %v", names, err)
	}
	if _, err := ReadModel(r, int64(len(raw)), "model"); err != nil {
		t.Error(err)
	}
	if _, err := ReadModel(r, int64(len(raw)), "other"); err == nil {
		t.Error("missing model accepted")
	}
	if _, err := ReadModel(r, int64(len(raw)), "../model"); err == nil {
		t.Error("traversing model name accepted")
	}
}
