//go:build cgo

package pjrt

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/gomlx/gopjrt/dtypes"
	gopjrt "github.com/gomlx/gopjrt/pjrt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Backend targets one device of a plugin. Every Backend on a plugin
// shares the plugin's one client (see sharedClient); Open returns the same
// Backend for the same plugin and device, so a process holds one client
// per plugin however many programs run on it. A Backend is safe for
// concurrent use: PJRT clients, executables and buffers are thread-safe,
// and every call builds its own argument structs.
type Backend struct {
	kind      string
	shared    *sharedClient
	device    *gopjrt.Device
	rawDevice unsafe.Pointer // device's PJRT_Device
	ordinal   int
}

// sharedClient is the process's client on one plugin file. libtpu allows
// one client per process, and a client owns the device memory, so every
// program on the plugin uses this one. It lives as long as the process.
type sharedClient struct {
	path   string
	plugin *gopjrt.Plugin
	client *gopjrt.Client
	api    capi           // for the calls made without the binding
	raw    unsafe.Pointer // client's PJRT_Client
	shlo   string         // the plugin's StableHLO version, "unknown" when not reported
}

type backendKey struct {
	kind, path string
	ordinal    int
}

var (
	clientsMu sync.Mutex // held while a client is created: creation is not repeated concurrently
	clients   = map[string]*sharedClient{}
	backends  = map[backendKey]*Backend{}
)

// Open returns the backend for device number ordinal of the plugin at
// path, creating the plugin's client on first use. A failed client
// creation is not remembered: a later Open tries again.
func Open(kind, path string, ordinal int) (*Backend, error) {
	clientsMu.Lock()
	defer clientsMu.Unlock()
	key := backendKey{kind, path, ordinal}
	if b, ok := backends[key]; ok {
		return b, nil
	}
	sc, err := clientFor(kind, path)
	if err != nil {
		return nil, err
	}
	devs := sc.client.AddressableDevices()
	if len(devs) == 0 {
		return nil, fmt.Errorf("pjrt %s (%s): the plugin reports no addressable device", kind, path)
	}
	if ordinal < 0 || ordinal >= len(devs) {
		return nil, fmt.Errorf("pjrt %s: device %d out of range (the plugin has %d)", kind, ordinal, len(devs))
	}
	raw, err := deviceHandle(devs[ordinal])
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: %w", kind, err)
	}
	b := &Backend{kind: kind, shared: sc, device: devs[ordinal], rawDevice: raw, ordinal: ordinal}
	backends[key] = b
	return b, nil
}

// clientFor returns the shared client of the plugin at path, creating it.
// clientsMu is held.
func clientFor(kind, path string) (*sharedClient, error) {
	if sc, ok := clients[path]; ok {
		return sc, nil
	}
	p, api, _, err := load(path)
	if err != nil {
		return nil, err
	}
	shlo, err := checkStableHLO(p.Attributes())
	if err != nil {
		return nil, fmt.Errorf("pjrt %s (%s): %w", kind, path, err)
	}
	opts, err := clientOptions(kind)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: %w", kind, err)
	}
	client, err := p.NewClient(opts)
	if err != nil {
		if len(opts) > 0 {
			return nil, fmt.Errorf("pjrt %s (%s): create client with options %s: %w", kind, path, FormatOptions(opts), err)
		}
		return nil, fmt.Errorf("pjrt %s (%s): create client: %w", kind, path, err)
	}
	markCreated(kind)
	raw, err := clientHandle(client)
	if err != nil {
		_ = client.Destroy()
		return nil, fmt.Errorf("pjrt %s: %w", kind, err)
	}
	sc := &sharedClient{path: path, plugin: p, client: client, api: capi{api}, raw: raw, shlo: shlo}
	clients[path] = sc
	return sc, nil
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
	maj, min := b.shared.plugin.Version()
	c := b.shared.client
	return fmt.Sprintf("pjrt-%d.%d/stablehlo-%s/%s/%s", maj, min, b.shared.shlo, c.Platform(), c.PlatformVersion())
}

// Platform is the client's platform name and version ("cpu <version>").
func (b *Backend) Platform() string {
	c := b.shared.client
	name, v := c.Platform(), c.PlatformVersion()
	if v == "" || v == name {
		return name
	}
	return name + " " + v
}

// Devices describes the client's addressable devices.
func (b *Backend) Devices() []string {
	var out []string
	for i, d := range b.shared.client.AddressableDevices() {
		desc := fmt.Sprintf("%s:%d", b.kind, i)
		if dd, err := d.GetDescription(); err == nil {
			desc += " " + strings.TrimSpace(dd.DebugString())
		}
		out = append(out, desc)
	}
	return out
}

// Compile prints m as MLIR text and compiles it with the plugin. The
// arguments of the entry function that carry tf.aliasing_output or
// jax.buffer_donor are donated when the executable runs.
func (b *Backend) Compile(ctx context.Context, m *stablehlo.Module, opts backend.Options) (backend.Executable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	replicas, partitions := gridOf(m, opts)
	if n := len(b.shared.client.AddressableDevices()); replicas*partitions > n {
		return nil, fmt.Errorf("pjrt %s: %d replicas x %d partitions need %d devices, the client has %d: %w",
			b.Name(), replicas, partitions, replicas*partitions, n, backend.ErrNotImplemented)
	}
	entry := opts.Entry
	if entry == "" {
		entry = "main"
	}
	if entry != "main" {
		return nil, fmt.Errorf("pjrt %s: entry @%s: PJRT plugins run @main: %w", b.Name(), entry, backend.ErrNotImplemented)
	}
	f := m.Func(entry)
	if f == nil {
		return nil, fmt.Errorf("pjrt %s: the module has no @%s function", b.Name(), entry)
	}
	if legalize.IsDynamic(m) { // specialised per call (poly.go)
		return newPoly(ctx, b.Name(), m, opts.Buckets, func(ctx context.Context, s *legalize.State) (backend.Executable, error) {
			s.Target = legalize.TargetFor(b.kind)
			if err := legalize.Run(s, legalize.OptionsFromEnv()); err != nil {
				return nil, fmt.Errorf("pjrt %s: %w", b.Name(), err)
			}
			return b.compileStatic(ctx, s.Module, s.Edges, replicas, partitions)
		})
	}
	s := &legalize.State{Ctx: ctx, Module: m, Target: legalize.TargetFor(b.kind)}
	if legalize.Needed(s) {
		c, err := legalize.Clone(m)
		if err != nil {
			return nil, fmt.Errorf("pjrt %s: %w", b.Name(), err)
		}
		s.Module = c
		if err := legalize.Run(s, legalize.OptionsFromEnv()); err != nil {
			return nil, fmt.Errorf("pjrt %s: %w", b.Name(), err)
		}
	}
	return b.compileStatic(ctx, s.Module, s.Edges, replicas, partitions)
}

// compileStatic prints a legalized module and compiles it with the
// plugin.
func (b *Backend) compileStatic(ctx context.Context, m *stablehlo.Module, edges *legalize.Edges, replicas, partitions int) (backend.Executable, error) {
	f := m.Func("main")
	if f == nil {
		return nil, fmt.Errorf("pjrt %s: the module has no @main function", b.Name())
	}
	var sb strings.Builder
	if err := stablehlo.Print(&sb, m); err != nil {
		return nil, fmt.Errorf("pjrt %s: print module: %w", b.Name(), err)
	}
	exe, err := compileBlocking(ctx, func() (*gopjrt.LoadedExecutable, error) {
		cc := b.shared.client.Compile().WithStableHLO([]byte(sb.String()))
		switch {
		case partitions > 1: // sharded by the program's annotations: XLA's SPMD partitioner
			cc = cc.WithShardy(replicas * partitions)
		case replicas > 1:
			cc = cc.WithSPMD(replicas)
		}
		return cc.Done()
	})
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: compile: %w", b.Name(), err)
	}
	h, err := executableHandle(exe)
	if err != nil {
		_ = exe.Destroy()
		return nil, fmt.Errorf("pjrt %s: %w", b.Name(), err)
	}
	return &executable{b: b, owner: exe, handle: h, nargs: len(f.Type.Inputs), nout: exe.NumOutputs, donate: Donatable(f),
		devices: replicas * partitions, edges: edges}, nil
}

// compileBlocking runs a plugin compile, which cannot be interrupted, in a
// goroutine, so that a cancelled ctx returns at once; an executable that
// arrives after that is destroyed.
func compileBlocking(ctx context.Context, compile func() (*gopjrt.LoadedExecutable, error)) (*gopjrt.LoadedExecutable, error) {
	type result struct {
		exe *gopjrt.LoadedExecutable
		err error
	}
	ch := make(chan result, 1)
	go func() {
		exe, err := compile()
		ch <- result{exe, err}
	}()
	select {
	case r := <-ch:
		return r.exe, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.exe != nil {
				_ = r.exe.Destroy()
			}
		}()
		return nil, ctx.Err()
	}
}

type executable struct {
	b      *Backend
	owner  any            // what keeps handle alive: the binding's *LoadedExecutable or a *rawExecutable
	handle unsafe.Pointer // the PJRT_LoadedExecutable
	nargs  int
	nout   int
	donate []bool // per argument: the program lets its input buffer be donated
	// devices is replicas × partitions; above 1 the executable runs on
	// that many devices of the client (multi_device_cgo.go).
	devices int
	// edges are the arguments and results carried in another element
	// type on the device (legalize's types pass; edges.go converts them).
	edges *legalize.Edges
}

// Run copies the inputs to the device, executes, and reads the outputs
// back. When ctx ends first, Run returns ctx's error at once; the device
// work already queued finishes and its buffers are released then.
func (e *executable) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	if e.devices > 1 { // every device gets the same arguments; device 0's results
		per := make([][]*literal.Literal, e.devices)
		for i := range per {
			per[i] = args
		}
		outs, err := e.RunOnDevices(ctx, per)
		if err != nil {
			return nil, err
		}
		return outs[0], nil
	}
	p, err := e.RunAsync(ctx, args)
	if err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

var _ backend.AsyncExecutable = (*executable)(nil)

// Pending is a run started by RunAsync (a backend.Pending).
type Pending struct {
	done chan struct{}
	outs []*literal.Literal
	err  error
}

// Wait returns the run's outputs when it is done, or ctx's error when ctx
// ends first (the run goes on and cleans up after itself).
func (p *Pending) Wait(ctx context.Context) ([]*literal.Literal, error) {
	select {
	case <-p.done:
		return p.outs, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Done is closed when the run is over.
func (p *Pending) Done() <-chan struct{} { return p.done }

// RunAsync starts the copies of the inputs to the device, enqueues the
// execution and returns without waiting for either (the plugin orders the
// execution after the copies). The plugin signals completion through a
// PJRT event (PJRT_Event_OnReady), after which the outputs are copied to the host
// and every device buffer is released, whether or not anyone waits. A ctx
// that ends before the execution is enqueued stops the run; device work
// once enqueued cannot be recalled, and only waits are abandoned.
func (e *executable) RunAsync(ctx context.Context, args []*literal.Literal) (backend.Pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(args) != e.nargs {
		return nil, fmt.Errorf("pjrt %s: the program takes %d arguments, got %d", e.b.Name(), e.nargs, len(args))
	}
	args, err := edgesToDevice(e.edges, args)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: %w", e.b.Name(), err)
	}
	api := e.b.shared.api
	bufs := make([]deviceBuffer, len(args))
	release := func() {
		for i := range bufs {
			bufs[i].release(api) // donated or not, the handle is ours to destroy
		}
	}
	for i, a := range args {
		buf, err := api.toDevice(e.b.shared.raw, e.b.rawDevice, a)
		if err == nil {
			err = ctx.Err()
		}
		bufs[i] = buf
		if err != nil {
			release()
			return nil, fmt.Errorf("pjrt %s: argument %d (%v): copy to %s: %w", e.b.Name(), i, a, e.b.Name(), err)
		}
	}
	if err := ctx.Err(); err != nil {
		release()
		return nil, err
	}
	var keep []int64
	for i := range args {
		if !e.donate[i] {
			keep = append(keep, int64(i))
		}
	}
	l, err := api.execute(e.handle, e.b.rawDevice, bufs, keep, e.nout)
	if err != nil {
		release()
		return nil, fmt.Errorf("pjrt %s: execute: %w", e.b.Name(), err)
	}
	p := &Pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer release()
		defer l.release()
		defer runtime.KeepAlive(e) // its executable outlives the run
		if err := <-l.done; err != nil {
			p.err = fmt.Errorf("pjrt %s: execute: %w", e.b.Name(), err)
			return
		}
		outs := make([]*literal.Literal, len(l.outs))
		for i, o := range l.outs {
			lit, err := e.b.shared.api.toHost(o)
			if err != nil {
				p.err = fmt.Errorf("pjrt %s: output %d: %w", e.b.Name(), i, err)
				return
			}
			outs[i] = lit
		}
		if outs, err = edgesToHost(e.edges, outs); err != nil {
			p.err = fmt.Errorf("pjrt %s: %w", e.b.Name(), err)
			return
		}
		p.outs = outs
	}()
	return p, nil
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

func open(kind, path string, ordinal int) (backend.Backend, error) { return Open(kind, path, ordinal) }

// serialMagic starts a serialized executable: torchtpu's header (what the
// plugin's bytes do not say: the argument count, output count and
// donation), then the plugin's PJRT_Executable_Serialize bytes.
const serialMagic = "torchtpu-pjrt-exe 1\n"

// Serialize returns the executable in a form Deserialize loads on the
// same plugin version (the compile cache keys entries by Version).
func (e *executable) Serialize() ([]byte, error) {
	blob, err := e.b.shared.api.serialize(e.handle)
	runtime.KeepAlive(e)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: serialize: %w", e.b.Name(), err)
	}
	donate := make([]byte, len(e.donate))
	for i, d := range e.donate {
		donate[i] = '0'
		if d {
			donate[i] = '1'
		}
	}
	head := fmt.Sprintf("%s%d %d %s", serialMagic, e.nargs, e.nout, "d"+string(donate))
	if e.edges != nil { // the types legalize carries differently (edges.go)
		head += " " + formatEdges(e.edges)
	}
	head += "\n"
	return append([]byte(head), blob...), nil
}

// Deserialize loads what Serialize produced.
func (b *Backend) Deserialize(ctx context.Context, data []byte) (backend.Executable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(data, []byte(serialMagic))
	line, blob, found := bytes.Cut(rest, []byte("\n"))
	var nargs, nout int
	var donate, edgeText string
	if ok && found {
		n, _ := fmt.Sscanf(string(line), "%d %d %s %s", &nargs, &nout, &donate, &edgeText)
		ok = n >= 3 && nargs >= 0 && nout >= 0 && len(donate) == nargs+1 && donate[0] == 'd'
	}
	if !ok || !found {
		return nil, fmt.Errorf("pjrt %s: not a serialized torchtpu executable", b.Name())
	}
	edges, err := parseEdges(edgeText)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: serialized executable: %w", b.Name(), err)
	}
	flags := make([]bool, nargs)
	for i := range flags {
		flags[i] = donate[i+1] == '1'
	}
	type result struct {
		r   *rawExecutable
		err error
	}
	ch := make(chan result, 1)
	go func() { // loading cannot be interrupted: a cancelled ctx abandons it
		r, err := b.shared.api.deserialize(b.shared.raw, blob)
		ch <- result{r, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		return nil, ctx.Err() // the executable, if any, is collected
	}
	if r.err != nil {
		return nil, fmt.Errorf("pjrt %s: deserialize: %w", b.Name(), r.err)
	}
	n, err := b.shared.api.numOutputs(r.r.p)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: deserialized executable: %w", b.Name(), err)
	}
	if n != nout {
		return nil, fmt.Errorf("pjrt %s: deserialized executable has %d outputs, its header says %d", b.Name(), n, nout)
	}
	return &executable{b: b, owner: r.r, handle: r.r.p, nargs: nargs, nout: nout, donate: flags, edges: edges}, nil
}
