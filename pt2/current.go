package pt2

import (
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
	if err := fs.programSize(name); err != nil {
		return nil, err
	}
	data, err := fs.read(name, fs.lim.ProgramBytes)
	if err != nil {
		return nil, err
	}
	g, ep, err := decodeProgramLimits(data, fs.lim)
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
