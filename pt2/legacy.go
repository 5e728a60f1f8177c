package pt2

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
)

// readLegacy reads the torch ≤ 2.7 layout: serialized_exported_program.json,
// serialized_state_dict.pt, serialized_constants.pt,
// serialized_example_inputs.pt (torch.save pickles) and version.
func readLegacy(fs *zipFS) (*Program, error) {
	if v, err := fs.read("version", 64); err == nil {
		major, _, _ := strings.Cut(strings.TrimSpace(string(v)), ".")
		if major != fmt.Sprint(SupportedSchemaMajor) {
			return nil, fmt.Errorf("version %q: schema major %s is not supported", v, major)
		}
	}
	p, err := readProgramJSON(fs, "serialized_exported_program.json")
	if err != nil {
		return nil, err
	}
	p.Layout = "legacy"
	pool := map[string]*literal.Literal{}
	for _, name := range []string{"serialized_state_dict.pt", "serialized_constants.pt", "serialized_state_dict.json"} {
		if f := fs.files[name]; f == nil || f.UncompressedSize64 == 0 {
			continue
		}
		if err := poolTorchSave(fs, name, pool); err != nil {
			return nil, err
		}
	}
	if err := p.bind(pool); err != nil {
		return nil, err
	}
	if fs.has("serialized_example_inputs.pt") {
		p.sampleInputs(loadTorchSaveEntry(fs, "serialized_example_inputs.pt"))
	}
	return p, nil
}
