package pt2

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/limits"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2/pickle"
)

// torchTensor is a tensor read from a torch.save pickle.
type torchTensor struct {
	*literal.Literal
	RequiresGrad bool
	Param        bool // rebuilt through torch._utils._rebuild_parameter
}

// storageTypes maps the torch storage classes a torch.save pickle names
// (in its persistent ids) to their element type.
var storageTypes = map[string]dtype.DType{
	"FloatStorage": dtype.F32, "DoubleStorage": dtype.F64, "HalfStorage": dtype.F16,
	"BFloat16Storage": dtype.BF16, "LongStorage": dtype.I64, "IntStorage": dtype.I32,
	"ShortStorage": dtype.I16, "CharStorage": dtype.I8, "ByteStorage": dtype.U8,
	"BoolStorage": dtype.Bool, "ComplexFloatStorage": dtype.C64, "ComplexDoubleStorage": dtype.C128,
	"UInt16Storage": dtype.U16, "UInt32Storage": dtype.U32, "UInt64Storage": dtype.U64,
	"Float8_e4m3fnStorage": dtype.F8E4M3FN, "Float8_e5m2Storage": dtype.F8E5M2,
	"Float8_e4m3fnuzStorage": dtype.F8E4M3FNUZ, "Float8_e5m2fnuzStorage": dtype.F8E5M2FNUZ,
	"UntypedStorage": dtype.U8,
}

// storage is one storage record of a torch.save archive.
type storage struct {
	dt   dtype.DType
	data []byte
	// adopted is set once a tensor has taken data as its own (it was the
	// whole storage); later views of the storage copy from it.
	adopted bool
}

// torchSave reads torch.save's zip format: <prefix>/data.pkl and the
// storages <prefix>/data/<key>.
type torchSave struct {
	fs       *zipFS
	prefix   string
	storages map[string]*storage
}

// loadTorchSave decodes a torch.save file held in data under the default
// limits. what names it in errors.
func loadTorchSave(data []byte, what string) (any, error) {
	return loadTorchSaveAt(bytes.NewReader(data), int64(len(data)), what, limits.Limits{}, nil)
}

// loadTorchSaveEntry decodes the torch.save file stored in entry name of
// fs, reading it in place where it is stored uncompressed (see nested).
// Its tensors count against fs's limits and budget.
func loadTorchSaveEntry(fs *zipFS, name string) (any, error) {
	r, size, err := fs.nested(name)
	if err != nil {
		return nil, err
	}
	return loadTorchSaveAt(r, size, name, fs.lim, fs.budget)
}

// loadTorchSaveAt decodes a torch.save file of size bytes read from r,
// charging its storages and tensors to budget (a new one when nil).
func loadTorchSaveAt(r io.ReaderAt, size int64, what string, lim limits.Limits, budget *limits.Budget) (any, error) {
	var magic [1]byte
	if size >= 2 {
		if _, err := r.ReadAt(magic[:], 0); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if magic[0] == 0x80 {
			return nil, fmt.Errorf("%s: legacy (non-zip) torch.save format is not supported", what)
		}
	}
	fs, err := openZip(r, size, lim, budget)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ts := &torchSave{fs: fs, storages: map[string]*storage{}}
	for _, n := range fs.order {
		if strings.HasSuffix(n, "/data.pkl") && strings.Count(n, "/") == 1 || n == "data.pkl" {
			ts.prefix = strings.TrimSuffix(n, "data.pkl")
			break
		}
	}
	if ts.prefix == "" && !fs.has("data.pkl") {
		return nil, fmt.Errorf("%s: no data.pkl in the torch.save archive", what)
	}
	if bo, err := fs.read(ts.prefix+"byteorder", 64); err == nil && strings.TrimSpace(string(bo)) != "little" {
		return nil, fmt.Errorf("%s: byteorder %q is not supported", what, bo)
	}
	if err := fs.programSize(ts.prefix + "data.pkl"); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pkl, err := fs.read(ts.prefix+"data.pkl", fs.lim.ProgramBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	u := &pickle.Unpickler{Find: ts.findGlobal, PersistentLoad: ts.persistentLoad, MaxDepth: fs.lim.Nesting}
	v, err := u.Load(pkl)
	if err != nil {
		return nil, fmt.Errorf("%s: data.pkl: %w", what, err)
	}
	return v, nil
}

// persistentLoad resolves ('storage', storage_type, key, location, numel).
func (ts *torchSave) persistentLoad(pid any) (any, error) {
	t, ok := pid.(pickle.Tuple)
	if !ok || len(t) != 5 || t[0] != "storage" {
		return nil, fmt.Errorf("unsupported persistent id %v", pid)
	}
	st, ok1 := t[1].(pickle.Global)
	key, ok2 := t[2].(string)
	numel, ok3 := t[4].(int64)
	if !ok1 || !ok2 || !ok3 || numel < 0 {
		return nil, fmt.Errorf("malformed storage persistent id %v", pid)
	}
	dt, ok := storageTypes[st.Name]
	if !ok || st.Module != "torch" {
		return nil, fmt.Errorf("unsupported storage type %v", st)
	}
	if s, ok := ts.storages[key]; ok {
		if s.dt != dt {
			return nil, fmt.Errorf("storage %s used as %v and %v", key, s.dt, dt)
		}
		return s, nil
	}
	if strings.ContainsAny(key, "/\\") || key == ".." || key == "." {
		return nil, fmt.Errorf("bad storage key %q", key)
	}
	name := ts.prefix + "data/" + key
	if numel > literal.MaxElements {
		return nil, fmt.Errorf("storage %s: %d elements is too many", key, numel)
	}
	want := numel * int64(dt.Size())
	if err := ts.fs.lim.Tensor(fmt.Sprintf("storage %s (%d × %v)", key, numel, dt), want); err != nil {
		return nil, err
	}
	data, err := ts.fs.readTensors(name, want)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != want {
		return nil, fmt.Errorf("storage %s: %d bytes, want %d (%d × %v)", key, len(data), want, numel, dt)
	}
	s := &storage{dt: dt, data: data}
	ts.storages[key] = s
	return s, nil
}

// findGlobal is the allow-list: the only globals a torch.save pickle may
// name. Everything else is an error naming the global.
func (ts *torchSave) findGlobal(module, name string) (pickle.Global, error) {
	g := pickle.Global{Module: module, Name: name}
	switch module + "." + name {
	case "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor":
		g.Call = ts.rebuildTensor
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		g.Call = rebuildParameter
	case "collections.OrderedDict":
		g.Call = newOrderedDict
	case "torch.Size":
		g.Call = func(args pickle.Tuple) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("takes one argument")
			}
			return args[0], nil
		}
	default:
		if module == "torch" {
			if _, ok := storageTypes[name]; ok {
				return g, nil // only meaningful inside a persistent id
			}
			if _, err := dtype.ParseTorch(name); err == nil {
				return g, nil // a dtype value such as torch.float32
			}
		}
		return g, fmt.Errorf("pickle global %s.%s is not allowed", module, name)
	}
	return g, nil
}

// rebuildTensor implements _rebuild_tensor_v2(storage, storage_offset,
// size, stride, requires_grad, backward_hooks[, metadata]).
func (ts *torchSave) rebuildTensor(args pickle.Tuple) (any, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("%d arguments, need at least 4", len(args))
	}
	st, ok := args[0].(*storage)
	if !ok {
		return nil, fmt.Errorf("storage argument is %T", args[0])
	}
	off, ok := args[1].(int64)
	if !ok {
		return nil, fmt.Errorf("storage_offset is %T", args[1])
	}
	size, err := ints(args[2], "size")
	if err != nil {
		return nil, err
	}
	stride, err := ints(args[3], "stride")
	if err != nil {
		return nil, err
	}
	// The first view that is the whole storage takes its bytes instead
	// of a copy: a weight is held once.
	lit, adopted, err := view(st.dt, st.data, size, stride, off, !st.adopted, ts.fs.budget)
	if err != nil {
		return nil, err
	}
	st.adopted = st.adopted || adopted
	t := &torchTensor{Literal: lit}
	if len(args) > 4 {
		t.RequiresGrad, _ = args[4].(bool)
	}
	return t, nil
}

// rebuildParameter implements _rebuild_parameter(data, requires_grad,
// backward_hooks[, state]).
func rebuildParameter(args pickle.Tuple) (any, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("%d arguments, need at least 2", len(args))
	}
	t, ok := args[0].(*torchTensor)
	if !ok {
		return nil, fmt.Errorf("data is %T, not a tensor", args[0])
	}
	p := *t
	p.Param = true
	p.RequiresGrad, _ = args[1].(bool)
	return &p, nil
}
