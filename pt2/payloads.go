package pt2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
)

// readPayloads reads a PayloadConfig and the raw tensors it describes.
//
// A storage file is read when its first tensor needs it and dropped after
// its last, so a loaded archive never holds a weight's bytes twice: the
// last (usually the only) view of a file adopts its bytes when it is the
// whole storage (see adoptStrided). Tensors that are the same view of the
// same file (tied weights: an LM head sharing the embedding) get the same
// literal, as they share one storage in PyTorch.
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
	uses := map[string]int{} // distinct views per storage file
	seen := map[string]bool{}
	for _, meta := range pc.Config {
		if meta.TensorMeta != nil && !meta.UsePickle && !seen[viewKey(meta)] {
			seen[viewKey(meta)] = true
			uses[meta.PathName]++
		}
	}
	views := map[string]*literal.Literal{} // by viewKey
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
		if meta.UsePickle {
			l, err := pickledTensor(fs, base+meta.PathName)
			if err != nil {
				return fmt.Errorf("%s: %q (%s): %w", name, fqn, meta.PathName, err)
			}
			pool[fqn] = l
			continue
		}
		key := viewKey(meta)
		if l := views[key]; l != nil {
			pool[fqn] = l
			continue
		}
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
		l, err := rawTensor(raw, meta.TensorMeta, last)
		if err != nil {
			return fmt.Errorf("%s: %q (%s): %w", name, fqn, meta.PathName, err)
		}
		views[key] = l
		pool[fqn] = l
	}
	return nil
}

// viewKey names the view a payload entry takes of its storage file: equal
// keys are the same elements. Sizes, strides and offset are compared as
// the JSON they were written as; a difference in spelling only costs a
// copy.
func viewKey(m jPayloadMeta) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\x00%d\x00", m.PathName, m.TensorMeta.DType)
	for _, part := range [][]json.RawMessage{m.TensorMeta.Sizes, m.TensorMeta.Strides, {m.TensorMeta.StorageOffset}} {
		for _, r := range part {
			b.Write(r)
			b.WriteByte(',')
		}
		b.WriteByte(0)
	}
	return b.String()
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
