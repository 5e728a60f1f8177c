package pt2

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
)

// readCurrent reads the PT2 archive layout (root folder, models/*.json).
func readCurrent(fs *zipFS, model string) (*Program, error) {
	root := archiveRoot(fs)
	af, err := fs.read(root+"archive_format", 64)
	if err != nil {
		return nil, fmt.Errorf("not a PT2 archive (no %sarchive_format and no serialized_exported_program.json)", root)
	}
	if string(af) != "pt2" {
		return nil, fmt.Errorf("%sarchive_format is %q, want \"pt2\"", root, af)
	}
	if v, err := fs.read(root+"archive_version", 64); err == nil && strings.TrimSpace(string(v)) != "0" {
		return nil, fmt.Errorf("%sarchive_version %q is not supported", root, v)
	}
	if bo, err := fs.read(root+"byteorder", 64); err == nil && strings.TrimSpace(string(bo)) != "little" {
		return nil, fmt.Errorf("%sbyteorder %q is not supported", root, bo)
	}
	switch {
	case model != "":
		if strings.ContainsAny(model, "/\\") || !fs.has(root+"models/"+model+".json") {
			return nil, fmt.Errorf("no program %q (%smodels/%s.json)", model, root, model)
		}
	case fs.has(root + "models/model.json"):
		model = "model"
	default:
		models := fs.withPrefix(root + "models/")
		if len(models) == 0 {
			return nil, fmt.Errorf("no %smodels/*.json", root)
		}
		model = strings.TrimSuffix(path.Base(models[0]), ".json")
	}
	p, err := readProgramJSON(fs, root+"models/"+model+".json")
	if err != nil {
		return nil, err
	}
	p.Layout, p.Model = "pt2", model

	pool := map[string]*literal.Literal{}
	for _, dir := range []struct{ dir, config, pickled string }{
		{"data/weights/", model + "_weights_config.json", model + ".pt"},
		{"data/constants/", model + "_constants_config.json", model + ".pt"},
	} {
		base := root + dir.dir
		switch {
		case fs.has(base + dir.config):
			if err := readPayloads(fs, base, dir.config, pool, p); err != nil {
				return nil, err
			}
		case fs.has(base + dir.pickled): // torch ~2.8: one torch.save dict
			if err := poolTorchSave(fs, base+dir.pickled, pool); err != nil {
				return nil, err
			}
		}
	}
	if err := p.bind(pool); err != nil {
		return nil, err
	}
	if si := root + "data/sample_inputs/" + model + ".pt"; fs.has(si) {
		p.sampleInputs(loadTorchSaveEntry(fs, si))
	}
	return p, nil
}

// archiveRoot finds the archive's root folder ("m/") from its first entry,
// as torch does; "" for archives written before the root folder existed.
func archiveRoot(fs *zipFS) string {
	root := ""
	if first := fs.order[0]; strings.Contains(first, "/") {
		root = first[:strings.Index(first, "/")+1]
	}
	if !fs.has(root+"archive_format") && fs.has("archive_format") {
		root = ""
	}
	return root
}

// readProgramJSON reads and decodes the serialized ExportedProgram in
// file name.
func readProgramJSON(fs *zipFS, name string) (*Program, error) {
	data, err := fs.read(name, maxJSON)
	if err != nil {
		return nil, err
	}
	g, ep, err := decodeProgram(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Program{
		Graph:         g,
		TorchVersion:  ep.TorchVersion,
		SchemaVersion: SchemaVersion{ep.SchemaVersion.Major, ep.SchemaVersion.Minor},
		OpsetVersion:  ep.OpsetVersion,
		Verifiers:     ep.Verifiers,
	}, nil
}

// readPayloads reads a PayloadConfig and the raw tensors it describes.
func readPayloads(fs *zipFS, base, config string, pool map[string]*literal.Literal, p *Program) error {
	name := base + config
	data, err := fs.read(name, maxJSON)
	if err != nil {
		return err
	}
	var pc jPayloadConfig
	if err := json.Unmarshal(quoteNonFinite(data), &pc); err != nil {
		return fmt.Errorf("%s: bad JSON: %w", name, err)
	}
	// A storage file is read when its first tensor needs it and dropped
	// after its last, so a loaded archive never holds a weight's bytes
	// twice: the last (usually the only) tensor of a file adopts its bytes
	// when it is the whole storage (see adoptStrided).
	uses := map[string]int{}
	for _, meta := range pc.Config {
		if meta.TensorMeta != nil && !meta.UsePickle {
			uses[meta.PathName]++
		}
	}
	files := map[string][]byte{}
	for _, fqn := range sortedNames(pc.Config) {
		meta := pc.Config[fqn]
		if meta.TensorMeta == nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %q is a custom object; skipped", name, fqn))
			continue
		}
		if meta.PathName == "" || strings.ContainsAny(meta.PathName, "/\\") || meta.PathName == ".." {
			return fmt.Errorf("%s: %q: bad path_name %q", name, fqn, meta.PathName)
		}
		var l *literal.Literal
		if meta.UsePickle {
			l, err = pickledTensor(fs, base+meta.PathName)
		} else {
			raw, ok := files[meta.PathName]
			if !ok {
				if raw, err = fs.read(base+meta.PathName, 0); err != nil {
					return fmt.Errorf("%s: %q: %w", name, fqn, err)
				}
				files[meta.PathName] = raw
			}
			uses[meta.PathName]--
			last := uses[meta.PathName] == 0
			if last {
				delete(files, meta.PathName)
			}
			l, err = rawTensor(raw, meta.TensorMeta, last)
		}
		if err != nil {
			return fmt.Errorf("%s: %q (%s): %w", name, fqn, meta.PathName, err)
		}
		pool[fqn] = l
	}
	return nil
}

// rawTensor rebuilds a tensor from the raw bytes of its whole storage. With
// adopt, raw is handed over: the tensor may keep it as its data.
func rawTensor(raw []byte, jm *jTensorMeta, adopt bool) (*literal.Literal, error) {
	m, err := tensorMeta(jm)
	if err != nil {
		return nil, err
	}
	shape, ok := m.StaticShape()
	if !ok {
		return nil, fmt.Errorf("stored tensor %v has symbolic sizes", m)
	}
	if len(raw)%m.DType.Size() != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of %v elements", len(raw), m.DType)
	}
	if len(raw) == 0 { // an empty or fake tensor: zeros
		return literal.New(m.DType, shape)
	}
	strides := make([]int64, len(m.Strides))
	for i, d := range m.Strides {
		if !d.IsStatic() {
			return nil, fmt.Errorf("symbolic stride")
		}
		strides[i] = d.Static
	}
	if len(strides) == 0 && len(shape) > 0 {
		strides = literal.Strides(shape)
	}
	if !m.StorageOffset.IsStatic() {
		return nil, fmt.Errorf("symbolic storage offset")
	}
	if adopt {
		return adoptStrided(m.DType, raw, shape, strides, m.StorageOffset.Static)
	}
	return asStrided(m.DType, raw, shape, strides, m.StorageOffset.Static)
}

// pickledTensor reads a tensor saved on its own with torch.save in entry
// name.
func pickledTensor(fs *zipFS, name string) (*literal.Literal, error) {
	v, err := loadTorchSaveEntry(fs, name)
	if err != nil {
		return nil, err
	}
	t, ok := v.(*torchTensor)
	if !ok {
		return nil, fmt.Errorf("pickled payload is %T, not a tensor", v)
	}
	return t.Literal, nil
}

// poolTorchSave adds the tensors of the torch.save'd dict in entry what to
// pool.
func poolTorchSave(fs *zipFS, what string, pool map[string]*literal.Literal) error {
	v, err := loadTorchSaveEntry(fs, what)
	if err != nil {
		return err
	}
	d, err := tensorDict(v, what)
	if err != nil {
		return err
	}
	for k, t := range d {
		pool[k] = t.Literal
	}
	return nil
}
