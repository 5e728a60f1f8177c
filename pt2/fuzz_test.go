package pt2

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
)

// The fuzz targets of the archive reader. Without -fuzz their seeds (and
// the crashers kept in testdata/fuzz/FuzzX) run as plain tests;
// scripts/fuzz.sh runs each for a while.

// FuzzArchive feeds whole archive bytes (both layouts) to Read. Whatever
// it accepts must be a well-formed program.
func FuzzArchive(f *testing.F) {
	for _, raw := range seedArchives(f, 2, 64<<10) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data), int64(len(data)))
		if err == nil {
			checkProgram(t, p)
		}
	})
}

// FuzzArchiveEntry replaces one entry of a real archive with the fuzzer's
// bytes and re-zips it, so that mutations of the JSON programs and
// configs, the pickles and the weight files get past the zip's CRCs.
func FuzzArchiveEntry(f *testing.F) {
	bases := seedArchives(f, 1, 40<<10)
	type archive struct {
		names []string
		data  [][]byte
	}
	var arcs []archive
	for _, raw := range bases {
		names, data := zipEntries(f, raw)
		arcs = append(arcs, archive{names, data})
	}
	for a, arc := range arcs {
		for e := range arc.names {
			f.Add(uint8(a), uint8(e), arc.data[e])
		}
	}
	f.Fuzz(func(t *testing.T, a, e uint8, entry []byte) {
		arc := arcs[int(a)%len(arcs)]
		data := append([][]byte(nil), arc.data...)
		data[int(e)%len(data)] = entry
		raw := storeZip(t, arc.names, data)
		p, err := Read(bytes.NewReader(raw), int64(len(raw)))
		if err == nil {
			checkProgram(t, p)
		}
	})
}

// checkProgram checks what Read promises of a program it returns: a graph
// that verifies (and still verifies after the graph passes), and tensors
// whose bytes match their dtype and shape.
func checkProgram(t *testing.T, p *Program) {
	t.Helper()
	if err := p.Graph.Verify(); err != nil {
		t.Fatalf("Read returned a graph that does not verify: %v", err)
	}
	for _, m := range []map[string]*literal.Literal{p.Params, p.Buffers, p.Constants} {
		for name, l := range m {
			checkLiteral(t, name, l)
		}
	}
	for i, l := range p.SampleInputs {
		if l != nil {
			checkLiteral(t, fmt.Sprintf("sample input %d", i), l)
		}
	}
	_ = p.Graph.Format()
	g := p.Graph.Clone()
	_ = fx.RunPasses(g, fx.PassOptions{Verify: true}) // an error is a verdict; a panic is not
}

func checkLiteral(t *testing.T, name string, l *literal.Literal) {
	t.Helper()
	n, err := literal.NumElements(l.Shape)
	if err != nil || l.DType.Size() == 0 || int64(len(l.Data)) != n*int64(l.DType.Size()) {
		t.Fatalf("%s: %v with %d bytes of data (%v)", name, l, len(l.Data), err)
	}
}

// FuzzProgramJSON feeds the serialized ExportedProgram (the serde JSON →
// fx.Graph path) of real archives, mutated. An accepted graph must verify
// and survive the graph passes, which must keep it valid.
func FuzzProgramJSON(f *testing.F) {
	for _, b := range entriesWithSuffix(f, seedArchives(f, 3, 64<<10), "models/model.json", "serialized_exported_program.json") {
		f.Add(b)
	}
	f.Add([]byte(`{"schema_version": {"major": 8, "minor": 2}, "graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "nodes": [{"target": "torch.ops.aten.clamp.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "min", "arg": {"as_float": -Infinity}}], "outputs": [{"as_tensor": {"name": "y"}}]}], "outputs": [{"as_tensor": {"name": "y"}}], "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s0', integer=True)"}}]}}}, "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}], "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]}}, "range_constraints": {"s0": {"min_val": 2, "max_val": 99999999999999999999999}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, _, err := decodeProgram(data)
		if err != nil {
			return
		}
		if err := g.Verify(); err != nil {
			t.Fatalf("decoded graph does not verify: %v", err)
		}
		for _, n := range g.Nodes {
			_ = n.String()
		}
		for _, m := range g.Tensors {
			_ = m.String()
			_, _ = m.EvalShape(map[string]int64{"s0": 3})
		}
		_ = g.Format()
		_ = g.Symbols()
		_ = fx.RunPasses(g, fx.PassOptions{Verify: true})
	})
}

// FuzzTorchSave feeds torch.save files (the sample inputs and the legacy
// layout's state dicts of real archives) to the torch.save reader.
func FuzzTorchSave(f *testing.F) {
	for _, b := range entriesWithSuffix(f, seedArchives(f, 2, 64<<10), ".pt") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := loadTorchSave(data, "fuzz")
		if err != nil {
			return
		}
		var ts []*torchTensor
		if flattenTensors(v, 0, &ts) == nil {
			for _, x := range ts {
				if x != nil {
					checkLiteral(t, "tensor", x.Literal)
				}
			}
		}
	})
}
