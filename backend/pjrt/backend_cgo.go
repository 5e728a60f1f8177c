//go:build cgo

package pjrt

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/gomlx/gopjrt/dtypes"
	gopjrt "github.com/gomlx/gopjrt/pjrt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Backend is a PJRT client on one plugin, targeting one device.
type Backend struct {
	kind    string
	path    string
	plugin  *gopjrt.Plugin
	client  *gopjrt.Client
	device  *gopjrt.Device
	ordinal int
	shlo    string     // the plugin's StableHLO version, "unknown" when not reported
	mu      sync.Mutex // the binding's clients are not documented as concurrent-safe
}

// Open loads the plugin at path and creates a client on its device number
// ordinal.
func Open(kind, path string, ordinal int) (*Backend, error) {
	p, _, err := Load(path)
	if err != nil {
		return nil, err
	}
	shlo, err := checkStableHLO(p.Attributes())
	if err != nil {
		return nil, fmt.Errorf("pjrt %s (%s): %w", kind, path, err)
	}
	client, err := p.NewClient(nil)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s (%s): create client: %w", kind, path, err)
	}
	devs := client.AddressableDevices()
	if len(devs) == 0 {
		_ = client.Destroy() // no Backend will own it
		return nil, fmt.Errorf("pjrt %s (%s): the plugin reports no addressable device", kind, path)
	}
	if ordinal < 0 || ordinal >= len(devs) {
		_ = client.Destroy()
		return nil, fmt.Errorf("pjrt %s: device %d out of range (the plugin has %d)", kind, ordinal, len(devs))
	}
	return &Backend{kind: kind, path: path, plugin: p, client: client, device: devs[ordinal], ordinal: ordinal, shlo: shlo}, nil
}

// Name is the device name, e.g. "cuda" or "tpu:1".
func (b *Backend) Name() string {
	if b.ordinal == 0 {
		return b.kind
	}
	return fmt.Sprintf("%s:%d", b.kind, b.ordinal)
}

// Version identifies the plugin and platform, for cache keys.
func (b *Backend) Version() string {
	maj, min := b.plugin.Version()
	return fmt.Sprintf("pjrt-%d.%d/stablehlo-%s/%s/%s", maj, min, b.shlo, b.client.Platform(), b.client.PlatformVersion())
}

// Devices describes the client's addressable devices.
func (b *Backend) Devices() []string {
	var out []string
	for i, d := range b.client.AddressableDevices() {
		desc := fmt.Sprintf("%s:%d", b.kind, i)
		if dd, err := d.GetDescription(); err == nil {
			desc += " " + strings.TrimSpace(dd.DebugString())
		}
		out = append(out, desc)
	}
	return out
}

// Compile prints m as MLIR text and compiles it with the plugin.
func (b *Backend) Compile(ctx context.Context, m *stablehlo.Module, opts backend.Options) (backend.Executable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var sb strings.Builder
	if err := stablehlo.Print(&sb, m); err != nil {
		return nil, fmt.Errorf("pjrt %s: print module: %w", b.Name(), err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	exe, err := b.client.Compile().WithStableHLO([]byte(sb.String())).Done()
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: compile: %w", b.Name(), err)
	}
	return &executable{b: b, exe: exe}, nil
}

type executable struct {
	b   *Backend
	exe *gopjrt.LoadedExecutable
}

// Run copies the inputs to the device, executes, and reads the outputs back.
func (e *executable) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.b.mu.Lock()
	defer e.b.mu.Unlock()
	bufs := make([]*gopjrt.Buffer, len(args))
	defer func() {
		for _, buf := range bufs {
			if buf != nil {
				_ = buf.Destroy()
			}
		}
	}()
	for i, a := range args {
		dt, err := toPJRT(a.DType)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		dims := make([]int, len(a.Shape))
		for j, d := range a.Shape {
			dims[j] = int(d)
		}
		buf, err := e.b.client.BufferFromHost().FromRawData(a.Data, dt, dims).ToDevice(e.b.device).Done()
		if err != nil {
			return nil, fmt.Errorf("argument %d (%v): copy to %s: %w", i, a, e.b.Name(), err)
		}
		bufs[i] = buf
	}
	outs, err := e.exe.Execute(bufs...).OnDevice(e.b.device).DonateNone().Done()
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: execute: %w", e.b.Name(), err)
	}
	defer func() { // every output, also those after one that fails to copy
		for _, o := range outs {
			_ = o.Destroy()
		}
	}()
	res := make([]*literal.Literal, len(outs))
	for i, o := range outs {
		l, err := toHost(o)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		res[i] = l
	}
	return res, nil
}

func toHost(b *gopjrt.Buffer) (*literal.Literal, error) {
	pdt, err := b.DType()
	if err != nil {
		return nil, err
	}
	dims, err := b.Dimensions()
	if err != nil {
		return nil, err
	}
	dt, err := fromPJRT(pdt)
	if err != nil {
		return nil, err
	}
	shape := make([]int64, len(dims))
	for i, d := range dims {
		shape[i] = int64(d)
	}
	l, err := literal.New(dt, shape)
	if err != nil {
		return nil, err
	}
	if err := b.ToHost(l.Data); err != nil {
		return nil, fmt.Errorf("copy to host: %w", err)
	}
	return l, nil
}

var dtypePairs = []struct {
	ours dtype.DType
	pj   dtypes.DType
}{
	{dtype.Bool, dtypes.Bool}, {dtype.I8, dtypes.Int8}, {dtype.I16, dtypes.Int16}, {dtype.I32, dtypes.Int32},
	{dtype.I64, dtypes.Int64}, {dtype.U8, dtypes.Uint8}, {dtype.U16, dtypes.Uint16}, {dtype.U32, dtypes.Uint32},
	{dtype.U64, dtypes.Uint64}, {dtype.F16, dtypes.Float16}, {dtype.BF16, dtypes.BFloat16},
	{dtype.F32, dtypes.Float32}, {dtype.F64, dtypes.Float64}, {dtype.C64, dtypes.Complex64},
	{dtype.C128, dtypes.Complex128}, {dtype.F8E5M2, dtypes.F8E5M2}, {dtype.F8E4M3FN, dtypes.F8E4M3FN},
}

func toPJRT(d dtype.DType) (dtypes.DType, error) {
	for _, p := range dtypePairs {
		if p.ours == d {
			return p.pj, nil
		}
	}
	return dtypes.InvalidDType, fmt.Errorf("element type %v cannot be transferred to a PJRT device: %w", d, backend.ErrNotImplemented)
}

func fromPJRT(d dtypes.DType) (dtype.DType, error) {
	for _, p := range dtypePairs {
		if p.pj == d {
			return p.ours, nil
		}
	}
	return dtype.Invalid, fmt.Errorf("PJRT element type %v is not supported: %w", d, backend.ErrNotImplemented)
}

func open(kind, path string, ordinal int) (backend.Backend, error) { return Open(kind, path, ordinal) }
