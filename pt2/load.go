// Package pt2 reads torch.export archives (.pt2): the serialized
// ExportedProgram JSON becomes an fx.Graph, and the parameters, buffers and
// constants become host literals keyed by their fully-qualified names.
//
// Both archive layouts are read: the current one (torch ≥ 2.9: a root
// folder, models/<name>.json, raw weight bytes described by
// data/weights/<name>_weights_config.json) and the legacy one (torch ≤ 2.7:
// serialized_exported_program.json with pickled torch.save state dicts).
// Pickles are decoded by pt2/pickle with an allow-list: nothing in an
// archive is ever executed.
//
// Every input is validated; a bad archive gives an error naming the entry,
// node or field, never a panic.
package pt2

import (
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/limits"
	"github.com/torchtpu/torchtpu/literal"
)

// Program is a loaded torch.export program.
type Program struct {
	Graph *fx.Graph
	// Params, Buffers and Constants hold the tensors behind the signature's
	// parameter, buffer (persistent or not) and tensor_constant inputs,
	// keyed by the FQN the signature names.
	Params, Buffers, Constants map[string]*literal.Literal
	// SampleInputs are the example inputs saved with the program, flattened
	// in pytree order; nil entries stand for non-tensor leaves. Nil when the
	// archive has none or they could not be read (see Warnings).
	SampleInputs []*literal.Literal

	TorchVersion  string
	SchemaVersion SchemaVersion
	OpsetVersion  map[string]int
	Verifiers     []string // ["TRAINING"] or ["ATEN"] (Core ATen after run_decompositions)
	Layout        string   // "pt2" (current) or "legacy"
	Model         string   // the model name inside a current-layout archive ("model")
	// Warnings lists what was skipped while loading (unreadable sample
	// inputs, custom objects).
	Warnings []string
}

// SchemaVersion is the export schema version the archive was written with.
type SchemaVersion struct{ Major, Minor int }

// String prints "8.20".
func (v SchemaVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Options control how an archive is read. The zero value reads "model" (or
// the first program) under the default limits.
type Options struct {
	// Model names the program of a current-layout archive to read
	// (models/<name>.json); "" picks "model" or else the first. Legacy
	// archives hold one program and accept only "".
	Model string
	// Limits bound what the archive may ask for: its largest tensor, all
	// its tensors together, its program JSON and the nesting of its JSON
	// and pickles. Zero fields take the defaults of package limits (which
	// the TORCHTPU_MAX_* environment variables set).
	Limits limits.Limits
}

// Load reads the archive at path.
func Load(path string) (*Program, error) { return LoadWithOptions(path, Options{}) }

// LoadWithOptions reads the archive at path.
func LoadWithOptions(path string, opts Options) (*Program, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	p, err := ReadWithOptions(f, st.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Read reads an archive of the given size. For an archive holding several
// programs it reads "model" (what torch.export.load returns), or else the
// first; see ReadModel.
func Read(r io.ReaderAt, size int64) (*Program, error) { return ReadModel(r, size, "") }

// ReadModel reads the named program of a current-layout archive
// (models/<name>.json); "" picks "model" or else the first. Legacy archives
// hold one program and accept only "".
func ReadModel(r io.ReaderAt, size int64, model string) (*Program, error) {
	return ReadWithOptions(r, size, Options{Model: model})
}

// ReadWithOptions reads an archive of the given size.
func ReadWithOptions(r io.ReaderAt, size int64, opts Options) (*Program, error) {
	model := opts.Model
	fs, err := openZip(r, size, opts.Limits, nil)
	if err != nil {
		return nil, err
	}
	if fs.has("serialized_exported_program.json") {
		if model != "" {
			return nil, fmt.Errorf("legacy archive holds one unnamed program, not %q", model)
		}
		return readLegacy(fs)
	}
	return readCurrent(fs, model)
}

// Models lists the program names of a current-layout archive, in archive
// order (nil for a legacy archive).
func Models(r io.ReaderAt, size int64) ([]string, error) {
	fs, err := openZip(r, size, limits.Limits{}, nil)
	if err != nil {
		return nil, err
	}
	root := archiveRoot(fs)
	var out []string
	for _, n := range fs.withPrefix(root + "models/") {
		if strings.HasSuffix(n, ".json") && !strings.Contains(n[len(root+"models/"):], "/") {
			out = append(out, strings.TrimSuffix(path.Base(n), ".json"))
		}
	}
	return out, nil
}

// ParamBytes returns the number of parameter tensors and their total bytes.
func (p *Program) ParamBytes() (n int, bytes int64) {
	for _, l := range p.Params {
		n++
		bytes += int64(len(l.Data))
	}
	return n, bytes
}

// Weight returns the tensor behind a parameter, buffer or tensor-constant
// FQN.
func (p *Program) Weight(fqn string) (*literal.Literal, bool) {
	for _, m := range []map[string]*literal.Literal{p.Params, p.Buffers, p.Constants} {
		if l, ok := m[fqn]; ok {
			return l, true
		}
	}
	return nil, false
}

// bind distributes the loaded tensors (pool, by FQN) to the signature's
// inputs, checking each against the placeholder's TensorMeta.
func (p *Program) bind(pool map[string]*literal.Literal) error {
	p.Params = map[string]*literal.Literal{}
	p.Buffers = map[string]*literal.Literal{}
	p.Constants = map[string]*literal.Literal{}
	g := p.Graph
	for i, s := range g.Signature.Inputs {
		var dst map[string]*literal.Literal
		switch s.Kind {
		case fx.InputParameter:
			dst = p.Params
		case fx.InputBuffer:
			dst = p.Buffers
		case fx.InputTensorConstant:
			dst = p.Constants
		default:
			continue
		}
		l, ok := pool[s.Target]
		if !ok {
			return fmt.Errorf("input %d: %s %q has no stored tensor", i, s.Kind, s.Target)
		}
		if m := g.Tensors[s.Arg.Name]; m != nil {
			if err := checkMeta(l, m); err != nil {
				return fmt.Errorf("input %d: %s %q: %w", i, s.Kind, s.Target, err)
			}
		}
		l.Frozen = true // read from the archive, never written (literal.Literal.Frozen)
		dst[s.Target] = l
	}
	return nil
}

func checkMeta(l *literal.Literal, m *fx.TensorMeta) error {
	if m.DType != l.DType {
		return fmt.Errorf("stored as %v, graph says %v", l, m)
	}
	shape, ok := m.StaticShape()
	if !ok {
		return nil
	}
	if fmt.Sprint(shape) != fmt.Sprint(l.Shape) {
		return fmt.Errorf("stored as %v, graph says %v", l, m)
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sampleInputs converts the decoded (args, kwargs) value, best effort.
func (p *Program) sampleInputs(v any, err error) {
	if err != nil {
		p.Warnings = append(p.Warnings, "sample inputs not read: "+err.Error())
		return
	}
	var ts []*torchTensor
	if err := flattenTensors(v, 0, &ts); err != nil {
		p.Warnings = append(p.Warnings, "sample inputs not read: "+err.Error())
		return
	}
	p.SampleInputs = make([]*literal.Literal, len(ts))
	for i, t := range ts {
		if t != nil {
			p.SampleInputs[i] = t.Literal
		}
	}
}
