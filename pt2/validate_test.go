package pt2

import (
	"archive/zip"
	"bytes"
	"os"
	"strings"
	"testing"
)

// rewrite copies the archive at path, applying edit to each entry (return
// nil to drop it) and adding extra entries.
func rewrite(t *testing.T, path string, edit func(name string, data []byte) []byte, extra map[string][]byte) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name string, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		if d := edit(f.Name, b.Bytes()); d != nil {
			put(f.Name, d)
		}
	}
	for n, d := range extra {
		put(n, d)
	}
	zw.Close()
	return buf.Bytes()
}

func keep(_ string, d []byte) []byte { return d }

func readBytes(b []byte) error {
	_, err := Read(bytes.NewReader(b), int64(len(b)))
	return err
}

func expectErr(t *testing.T, what string, err error, substr string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("%s: error %q does not mention %q", what, err, substr)
	}
}

func jsonEdit(from, to string) func(string, []byte) []byte {
	return func(name string, d []byte) []byte {
		if strings.HasSuffix(name, "models/model.json") || name == "serialized_exported_program.json" {
			return []byte(strings.Replace(string(d), from, to, 1))
		}
		return d
	}
}

func TestRejectsBadArchives(t *testing.T) {
	const good = "testdata/views.pt2"
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := readBytes(rewrite(t, good, keep, nil)); err != nil {
		t.Fatalf("rewritten good archive: %v", err)
	}
	expectErr(t, "not a zip", readBytes([]byte("hello, not a zip")), "not a zip")
	expectErr(t, "truncated", readBytes(raw[:len(raw)/2]), "not a zip")
	expectErr(t, "truncated tail", readBytes(raw[:len(raw)-10]), "")
	expectErr(t, "bad JSON", readBytes(rewrite(t, good, func(n string, d []byte) []byte {
		if strings.HasSuffix(n, "models/model.json") {
			return d[:len(d)/2]
		}
		return d
	}, nil)), "models/model.json: bad JSON")
	expectErr(t, "short weights", readBytes(rewrite(t, good, func(n string, d []byte) []byte {
		if strings.HasSuffix(n, "data/weights/weight_0") {
			return d[:len(d)-4]
		}
		return d
	}, nil)), "weight_0")
	expectErr(t, "traversal", readBytes(rewrite(t, good, keep, map[string][]byte{"views/../../evil": []byte("x")})), "path traversal")
	expectErr(t, "absolute", readBytes(rewrite(t, good, keep, map[string][]byte{"/etc/evil": []byte("x")})), "safe relative path")
	expectErr(t, "absurd dims", readBytes(rewrite(t, good, jsonEdit(`"sizes": [{"as_int": 2}`, `"sizes": [{"as_int": 4000000000000}, {"as_int": 4000000000000}`), nil)), "elements")
	expectErr(t, "schema major", readBytes(rewrite(t, good, jsonEdit(`"major": 8`, `"major": 9`), nil)), "schema version 9")
	expectErr(t, "duplicate value", readBytes(rewrite(t, good, jsonEdit(`"outputs": [{"as_tensor": {"name": "linear"}}]`, `"outputs": [{"as_tensor": {"name": "x"}}]`), nil)), "defined twice")
	expectErr(t, "undefined value", readBytes(rewrite(t, good, jsonEdit(`{"name": "self", "arg": {"as_tensor": {"name": "linear"}}`, `{"name": "self", "arg": {"as_tensor": {"name": "nowhere"}}`), nil)), "before it is defined")
	expectErr(t, "bad union", readBytes(rewrite(t, good, jsonEdit(`{"as_tensor": {"name": "x"}}`, `{"as_tensor": {"name": "x"}, "as_int": 3}`), nil)), "exactly one member")
	expectErr(t, "bad archive_format", readBytes(rewrite(t, good, func(n string, d []byte) []byte {
		if strings.HasSuffix(n, "archive_format") {
			return []byte("zip")
		}
		return d
	}, nil)), "archive_format")
}

func TestUnknownTargetKept(t *testing.T) {
	b := rewrite(t, "testdata/views.pt2", jsonEdit(`"torch.ops.aten.linear.default"`, `"torch.ops.mylib.frobnicate.default"`), nil)
	p, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Graph.OpCounts()["mylib::frobnicate.default"] != 1 {
		t.Errorf("op counts %v", p.Graph.OpCounts())
	}
}

func TestQuoteNonFinite(t *testing.T) {
	in := `{"a": NaN, "b": [Infinity, -Infinity, 1.5], "s": "NaN Infinity \" -Infinity"}`
	want := `{"a": "NaN", "b": ["Infinity", "-Infinity", 1.5], "s": "NaN Infinity \" -Infinity"}`
	if got := string(quoteNonFinite([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// torchSaveZip builds a torch.save-style zip holding pkl as data.pkl.
func torchSaveZip(t *testing.T, pkl []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string][]byte{"archive/data.pkl": pkl, "archive/byteorder": []byte("little")} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Close()
	return buf.Bytes()
}

func TestLegacyRejects(t *testing.T) {
	const good = "testdata/views_legacy.pt2"
	if _, err := os.Stat(good); err != nil {
		t.Fatalf("%s missing: run testdata/gen_views.py", good)
	}
	if err := readBytes(rewrite(t, good, keep, nil)); err != nil {
		t.Fatalf("rewritten good archive: %v", err)
	}
	withStateDict := func(pkl string) []byte {
		return rewrite(t, good, func(n string, d []byte) []byte {
			if n == "serialized_state_dict.pt" {
				return torchSaveZip(t, []byte(pkl))
			}
			return d
		}, nil)
	}
	expectErr(t, "os.system", readBytes(withStateDict("cos\nsystem\n(S'echo hi'\ntR.")), "os.system is not allowed")
	expectErr(t, "builtins.getattr", readBytes(withStateDict("\x80\x02cbuiltins\ngetattr\n.")), "builtins.getattr")
	// a storage persistent id whose data is shorter than its numel
	expectErr(t, "short storage", readBytes(withStateDict("\x80\x02}X\x01\x00\x00\x00actorch._utils\n_rebuild_tensor_v2\n(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQK\x00K\x04\x85K\x01\x85\x89NtRs.")), "data/0")
	expectErr(t, "no state dict entry", readBytes(withStateDict("\x80\x02}.")), "has no stored tensor")
	expectErr(t, "bad version", readBytes(rewrite(t, good, func(n string, d []byte) []byte {
		if n == "version" {
			return []byte("7.1")
		}
		return d
	}, nil)), "schema major 7")
	expectErr(t, "bare NaN still parses, bad JSON does not", readBytes(rewrite(t, good, jsonEdit(`"graph_module"`, `"graph_module" NaN`), nil)), "bad JSON")
}

func TestSharedSampleInputsBlowUp(t *testing.T) {
	// t0 = (None,); t_{i+1} = (t_i, t_i), 60 times: 2^60 leaves if walked naively.
	p := []byte("\x80\x02N\x85")
	for i := 0; i < 60; i++ {
		p = append(p, '2', 0x86)
	}
	p = append(p, '.')
	v, err := loadTorchSave(torchSaveZip(t, p), "test")
	if err != nil {
		t.Fatal(err)
	}
	var ts []*torchTensor
	if err := flattenTensors(v, 0, &ts); err == nil {
		t.Error("no error")
	}
}
