package pt2

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// modelJSON returns the model JSON of testdata/views.pt2.
func modelJSON(f *testing.F) []byte { return modelJSONT(f) }

func modelJSONT(f testing.TB) []byte {
	raw, err := os.ReadFile("testdata/views.pt2")
	if err != nil {
		f.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range zr.File {
		if strings.HasSuffix(e.Name, "models/model.json") {
			rc, _ := e.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return b
		}
	}
	f.Fatal("no model.json")
	return nil
}

func FuzzProgramJSON(f *testing.F) {
	f.Add(modelJSON(f))
	f.Add([]byte(`{"schema_version": {"major": 8, "minor": 2}, "graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "nodes": [{"target": "torch.ops.aten.clamp.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "min", "arg": {"as_float": -Infinity}}], "outputs": [{"as_tensor": {"name": "y"}}]}], "outputs": [{"as_tensor": {"name": "y"}}], "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s0', integer=True)"}}]}}}, "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}], "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]}}, "range_constraints": {"s0": {"min_val": 2, "max_val": 99999999999999999999999}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, _, err := decodeProgram(data)
		if err != nil {
			return
		}
		for _, n := range g.Nodes {
			_ = n.String()
		}
		for _, m := range g.Tensors {
			_ = m.String()
			_, _ = m.EvalShape(map[string]int64{"s0": 3})
		}
	})
}

func FuzzArchive(f *testing.F) {
	for _, name := range []string{"views", "views_legacy"} {
		raw, err := os.ReadFile("testdata/" + name + ".pt2")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Read(bytes.NewReader(data), int64(len(data)))
	})
}

func FuzzTorchSave(f *testing.F) {
	raw, err := os.ReadFile("testdata/views.pt2")
	if err != nil {
		f.Fatal(err)
	}
	zr, _ := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	for _, e := range zr.File {
		if strings.HasSuffix(e.Name, "sample_inputs/model.pt") {
			rc, _ := e.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = loadTorchSave(data, "fuzz")
	})
}
