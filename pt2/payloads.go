package pt2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/limits"
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
	if err := fs.programSize(name); err != nil {
		return err
	}
	data, err := fs.read(name, fs.lim.ProgramBytes)
	if err != nil {
		return err
	}
	if err := fs.lim.JSONDepth(name, data); err != nil {
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
		sm, err := storedMeta(meta.TensorMeta, fs.lim)
		if err != nil {
			return fmt.Errorf("%s: %q: tensor_meta: %w", name, fqn, err)
		}
		raw, ok := files[meta.PathName]
		if !ok {
			if raw, err = fs.readTensors(base+meta.PathName, 0); err != nil {
				return fmt.Errorf("%s: %q: %w", name, fqn, err)
			}
			files[meta.PathName] = raw
		}
		uses[meta.PathName]--
		last := uses[meta.PathName] == 0
		if last {
			delete(files, meta.PathName)
		}
		l, err := rawTensor(raw, sm, last, fs.budget)
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

// stored is the validated metadata of a tensor stored as raw bytes: a
// real element type and static sizes, strides and offset.
type stored struct {
	dt      dtype.DType
	shape   []int64
	strides []int64 // nil: row-major
	offset  int64
}

// storedMeta reads and checks the metadata of a stored tensor before any
// of its bytes are read: the element type must be one with a size (the
// schema's 0 is UNKNOWN), the sizes, strides and offset static, and the
// tensor within the TensorBytes limit.
func storedMeta(jm *jTensorMeta, lim limits.Limits) (*stored, error) {
	m, err := tensorMeta(jm)
	if err != nil {
		return nil, err
	}
	if m.DType.Size() == 0 {
		return nil, fmt.Errorf("dtype %d names no element type a stored tensor can have", jm.DType)
	}
	shape, ok := m.StaticShape()
	if !ok {
		return nil, fmt.Errorf("stored tensor %v has symbolic sizes", m)
	}
	n, err := literal.NumElements(shape)
	if err != nil {
		return nil, err
	}
	if err := lim.Tensor(fmt.Sprintf("tensor %v", m), n*int64(m.DType.Size())); err != nil {
		return nil, err
	}
	s := &stored{dt: m.DType, shape: shape}
	if len(m.Strides) > 0 {
		s.strides = make([]int64, len(m.Strides))
		for i, d := range m.Strides {
			if !d.IsStatic() {
				return nil, fmt.Errorf("symbolic stride")
			}
			s.strides[i] = d.Static
		}
	}
	if !m.StorageOffset.IsStatic() {
		return nil, fmt.Errorf("symbolic storage offset")
	}
	s.offset = m.StorageOffset.Static
	return s, nil
}

// rawTensor rebuilds a tensor from the raw bytes of its whole storage. With
// adopt, raw is handed over: the tensor may keep it as its data. Bytes it
// allocates are charged to budget first.
func rawTensor(raw []byte, m *stored, adopt bool, budget *limits.Budget) (*literal.Literal, error) {
	if len(raw)%m.dt.Size() != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of %v elements", len(raw), m.dt)
	}
	if len(raw) == 0 { // an empty or fake tensor: zeros
		n, _ := literal.NumElements(m.shape) // checked by storedMeta
		if err := budget.Take(fmt.Sprintf("zeros %v%v", m.dt, m.shape), n*int64(m.dt.Size())); err != nil {
			return nil, err
		}
		return literal.New(m.dt, m.shape)
	}
	strides := m.strides
	if strides == nil {
		strides = literal.Strides(m.shape)
	}
	if adopt {
		return adoptStrided(m.dt, raw, m.shape, strides, m.offset, budget)
	}
	return asStrided(m.dt, raw, m.shape, strides, m.offset, budget)
}
